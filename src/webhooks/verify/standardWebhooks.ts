/**
 * Standard Webhooks (and Svix, which uses the same scheme under svix-* names):
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`
 * where key is the base64 after `whsec_` in the secret. The header may hold
 * several space-separated entries; any v1 match counts. The timestamp must be
 * within 300 s of now.
 */
import { NO_MATCH, decodeSignature, header, hmacSha256, sameBytes, timestampRefusal } from './hmac';
import type { Delivery, Refusal } from './types';

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

export function verifyStandardWebhooks(secret: string, delivery: Delivery): Refusal {
  const key = standardWebhooksKey(secret);
  if (key === null) return "the webhook's secret is not a whsec_ secret";
  const id = either(delivery.headers, 'id');
  if (id === '') return 'missing webhook-id header';
  const stale = timestampRefusal(
    'webhook-timestamp header',
    either(delivery.headers, 'timestamp'),
    delivery.nowMs,
  );
  if (stale !== null) return stale;
  const signatures = either(delivery.headers, 'signature');
  if (signatures === '') return 'missing webhook-signature header';
  const timestamp = either(delivery.headers, 'timestamp');
  const expected = hmacSha256(key, `${id}.${timestamp}.`, delivery.body);
  let match = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = decodeSignature(entry.slice(comma + 1), 'base64');
    if (given !== null && sameBytes(expected, given)) match = true;
  }
  return match ? null : NO_MATCH;
}
