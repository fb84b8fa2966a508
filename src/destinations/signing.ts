/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of 24 random bytes; `webhook-signature` is `v1,<base64 HMAC-SHA256(key,
 * "<webhook-id>.<webhook-timestamp>.<body>")>`, one entry per secret that signs (space
 * separated: after a rotation the previous secret signs too, for 24 h).
 */
import crypto from 'node:crypto';

export function newSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

export function signature(secret: string, id: string, timestamp: number, body: Buffer): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = crypto.createHmac('sha256', key);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The three Standard Webhooks headers for a body, signed by every given secret. */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  nowMs: number,
  body: Buffer,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}
