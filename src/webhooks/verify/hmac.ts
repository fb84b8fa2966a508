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

export function withinTolerance(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= TOLERANCE_SECONDS;
}

/** A request's single header value ('' when absent). */
export function header(headers: Record<string, string>, name: string): string {
  return headers[name] ?? '';
}
