/**
 * Stripe: `Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
 * Several v1 entries may be present (during a secret roll); any match counts.
 * t must be within 300 s of now, so a captured request cannot be replayed later.
 */
import { decodeSignature, header, hmacSha256, sameBytes, withinTolerance } from './hmac';
import type { Delivery } from './types';

export function verifyStripe(secret: string, delivery: Delivery): boolean {
  let timestamp = '';
  const signatures: string[] = [];
  for (const item of header(delivery.headers, 'stripe-signature').split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (name === 't') timestamp = value;
    else if (name === 'v1') signatures.push(value);
  }
  if (!withinTolerance(timestamp, delivery.nowMs) || signatures.length === 0) return false;
  const expected = hmacSha256(secret, `${timestamp}.`, delivery.body);
  let match = false;
  for (const signature of signatures) {
    const given = decodeSignature(signature, 'hex');
    // every entry is compared, so the time taken does not say which one matched
    if (given !== null && sameBytes(expected, given)) match = true;
  }
  return match;
}
