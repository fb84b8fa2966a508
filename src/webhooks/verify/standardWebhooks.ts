/**
 * Standard Webhooks (and Svix, which uses the same scheme under svix-* names):
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`
 * where key is the base64 after `whsec_` in the secret. The header may hold
 * several space-separated entries; any v1 match counts. The timestamp must be
 * within 300 s of now.
 */
import { decodeSignature, header, hmacSha256, sameBytes, withinTolerance } from './hmac';
import type { Delivery } from './types';

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The signing key of a `whsec_<base64>` secret, or null when the secret is not one. */
export function standardWebhooksKey(secret: string): Buffer | null {
  const match = SECRET.exec(secret);
  if (!match) return null;
  const key = Buffer.from(match[1], 'base64');
  return key.length > 0 ? key : null;
}

/** The value of the webhook-* header, or of its svix-* twin. */
function either(headers: Record<string, string>, name: string): string {
  return header(headers, `webhook-${name}`) || header(headers, `svix-${name}`);
}

export function deliveryId(headers: Record<string, string>): string {
  return either(headers, 'id');
}

export function verifyStandardWebhooks(secret: string, delivery: Delivery): boolean {
  const key = standardWebhooksKey(secret);
  const id = either(delivery.headers, 'id');
  const timestamp = either(delivery.headers, 'timestamp');
  if (key === null || id === '' || !withinTolerance(timestamp, delivery.nowMs)) return false;
  const expected = hmacSha256(key, `${id}.${timestamp}.`, delivery.body);
  let match = false;
  for (const entry of either(delivery.headers, 'signature').split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = decodeSignature(entry.slice(comma + 1), 'base64');
    if (given !== null && sameBytes(expected, given)) match = true;
  }
  return match;
}
