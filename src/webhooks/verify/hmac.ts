/** HMAC-SHA256 and the constant-time comparison every scheme uses. */
import crypto from 'node:crypto';

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = crypto.createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** True when the two byte strings are equal; constant-time for equal lengths. */
export function sameBytes(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The bytes of a hex or base64 signature, or null when it is not well-formed. */
export function decodeSignature(text: string, encoding: 'hex' | 'base64'): Buffer | null {
  const trimmed = text.trim();
  if (encoding === 'hex') return HEX.test(trimmed) ? Buffer.from(trimmed, 'hex') : null;
  return BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
}

/** Seconds a signed timestamp may be away from now (Stripe's and Standard Webhooks' default). */
export const TOLERANCE_SECONDS = 300;

/** Why a signed timestamp is refused (not a number, too old, too far ahead), or null. */
export function timestampRefusal(name: string, timestamp: string, nowMs: number): string | null {
  if (timestamp === '') return `missing ${name}`;
  if (!/^\d{1,12}$/.test(timestamp)) return `${name} is not a Unix time in seconds`;
  const age = Math.round(nowMs / 1000 - Number(timestamp));
  if (age > TOLERANCE_SECONDS) return `timestamp ${age} s old; at most ${TOLERANCE_SECONDS} s`;
  if (-age > TOLERANCE_SECONDS)
    return `timestamp ${-age} s in the future; at most ${TOLERANCE_SECONDS} s`;
  return null;
}

export const NO_MATCH = 'signature does not match';

/** A request's single header value ('' when absent). */
export function header(headers: Record<string, string>, name: string): string {
  return headers[name] ?? '';
}
