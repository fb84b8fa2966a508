/**
 * Fresh provider signatures on replay: a webhook delivery verified on arrival with the stripe
 * or standard-webhooks scheme is signed again, with the webhook's stored secret and the
 * current time, whenever it is delivered later (push destinations; docs/api/destinations.md),
 * so that the provider's own library (Stripe's constructEvent, standardwebhooks' verify)
 * accepts it however long it waited. The original headers are kept as
 * X-Relayq-Original-<name>. GitHub's signature has no timestamp: replayed as received.
 *
 * Only a delivery that really came through the webhook URL is signed again: the receiver
 * stores a replay seal in its metadata (an HMAC of the message id and the body, keyed from
 * the provider's secret), so a message sent with forged `metadata.webhook` cannot make the
 * server sign a body of its choosing.
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

/** metadata.webhook.replay_seal: binds the message id and the exact body to the provider's secret. */
export function replaySeal(secret: string, messageId: string, body: Buffer): string {
  const key = hmac(secret, 'relayq replay seal v1');
  return hmac(key, `${messageId}.`, body).toString('base64url');
}

/** A message as a pull answers it (the fields a replay reads). */
interface PulledMessage {
  id: string;
  body: unknown;
  content_type: 'json' | 'text' | 'bytes' | 'v8';
  metadata?: Record<string, unknown>;
}

/** The exact bytes a pulled message's body stands for (text: UTF-8; bytes, v8: base64). */
export function bodyBytes(m: Pick<PulledMessage, 'body' | 'content_type'>): Buffer {
  if (m.content_type === 'text') return Buffer.from(String(m.body), 'utf8');
  if (m.content_type === 'bytes' || m.content_type === 'v8')
    return Buffer.from(String(m.body), 'base64');
  return Buffer.from(JSON.stringify(m.body), 'utf8');
}

interface SealedWebhook {
  id: string;
  headers: Record<string, string>;
  replay_seal: string;
}

/**
 * The webhook a pulled message came through when it was verified on arrival and sealed (its
 * replays are signed afresh); a cheap text test first, since most messages are not.
 */
export function sealedWebhookOf(messageJson: string): { id: string } | null {
  if (!messageJson.includes('"replay_seal"')) return null;
  const w = (JSON.parse(messageJson) as PulledMessage).metadata?.webhook as
    Partial<SealedWebhook> | undefined;
  return w && typeof w.id === 'string' && typeof w.replay_seal === 'string' ? { id: w.id } : null;
}

/**
 * The pulled message with its webhook headers signed afresh for nowMs (the replaced ones kept
 * as x-relayq-original-<name>), or the same text when its seal does not hold.
 */
export function withFreshWebhookSignature(
  signer: ReplaySigner,
  messageJson: string,
  nowMs: number,
): string {
  const m = JSON.parse(messageJson) as PulledMessage;
  const w = m.metadata?.webhook as Partial<SealedWebhook> | undefined;
  if (!w || typeof w.headers !== 'object' || w.headers === null) return messageJson;
  const body = bodyBytes(m);
  const seal = Buffer.from(replaySeal(signer.secret, m.id, body));
  const claimed = Buffer.from(String(w.replay_seal));
  if (seal.length !== claimed.length || !crypto.timingSafeEqual(seal, claimed)) return messageJson;
  w.headers = withFreshSignature(signer, w.headers, body, nowMs);
  return JSON.stringify(m);
}

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
  // the received header is kept once: signing a replay again keeps the original, not the last
  const keep = (name: string) => {
    const original = `x-relayq-original-${name}`;
    if (out[name] !== undefined && out[original] === undefined) out[original] = out[name];
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
