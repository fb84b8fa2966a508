/**
 * Fresh provider signatures on replay: a webhook delivery verified on arrival with the stripe
 * or standard-webhooks scheme is signed again, with the webhook's stored secret and the
 * current time, whenever it is delivered later (push destinations; docs/api/destinations.md),
 * so that the provider's own library (Stripe's constructEvent, standardwebhooks' verify)
 * accepts it however long it waited. The original headers are kept as
 * X-Relayq-Original-<name>. GitHub's signature has no timestamp: replayed as received.
 */
import crypto from 'node:crypto';

export interface ReplaySigner {
  scheme: 'stripe' | 'standard-webhooks';
  secret: string;
}

const hmac = (key: string | Buffer, ...parts: (string | Buffer)[]) => {
  const mac = crypto.createHmac('sha256', key);
  for (const p of parts) mac.update(p);
  return mac.digest();
};

/**
 * The headers (lower-case names) with the provider's signature recomputed for nowMs; the
 * replaced ones are kept as x-relayq-original-<name>.
 */
export function withFreshSignature(
  signer: ReplaySigner,
  headers: Record<string, string>,
  body: Buffer,
  nowMs: number,
): Record<string, string> {
  const out = { ...headers };
  const ts = Math.floor(nowMs / 1000);
  const keep = (name: string) => {
    if (out[name] !== undefined) out[`x-relayq-original-${name}`] = out[name];
  };
  if (signer.scheme === 'stripe') {
    keep('stripe-signature');
    out['stripe-signature'] = `t=${ts},v1=${hmac(signer.secret, `${ts}.`, body).toString('hex')}`;
    return out;
  }
  const prefix =
    out['webhook-id'] === undefined && out['svix-id'] !== undefined ? 'svix' : 'webhook';
  const id = out[`${prefix}-id`] ?? '';
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(signer.secret);
  if (!match || id === '') return out;
  keep(`${prefix}-timestamp`);
  keep(`${prefix}-signature`);
  out[`${prefix}-timestamp`] = String(ts);
  out[`${prefix}-signature`] =
    `v1,${hmac(Buffer.from(match[1], 'base64'), `${id}.${ts}.`, body).toString('base64')}`;
  return out;
}
