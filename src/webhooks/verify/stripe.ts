/**
 * Stripe: `Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
 * Several v1 entries may be present (during a secret roll); any match counts.
 * t must be within 300 s of now, so a captured request cannot be replayed later.
 */
import { NO_MATCH, decodeSignature, header, hmacSha256, sameBytes, timestampRefusal } from './hmac';
import type { Delivery, Refusal } from './types';

export function verifyStripe(secret: string, delivery: Delivery): Refusal {
  const value = header(delivery.headers, 'stripe-signature');
  if (value === '') return 'missing Stripe-Signature header';
  let timestamp = '';
  const signatures: string[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const name = item.slice(0, eq).trim();
    const entry = item.slice(eq + 1).trim();
    if (name === 't') timestamp = entry;
    else if (name === 'v1') signatures.push(entry);
  }
  const stale = timestampRefusal('Stripe-Signature timestamp (t=)', timestamp, delivery.nowMs);
  if (stale !== null) return stale;
  if (signatures.length === 0) return 'Stripe-Signature has no v1 signature';
  const expected = hmacSha256(secret, `${timestamp}.`, delivery.body);
  let match = false;
  for (const signature of signatures) {
    const given = decodeSignature(signature, 'hex');
    // every entry is compared, so the time taken does not say which one matched
    if (given !== null && sameBytes(expected, given)) match = true;
  }
  return match ? null : NO_MATCH;
}
