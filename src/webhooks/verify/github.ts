/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`. */
import { decodeSignature, header, hmacSha256, sameBytes } from './hmac';
import type { Delivery } from './types';

export function verifyGithub(secret: string, delivery: Delivery): boolean {
  const value = header(delivery.headers, 'x-hub-signature-256');
  if (!value.startsWith('sha256=')) return false;
  const given = decodeSignature(value.slice('sha256='.length), 'hex');
  return given !== null && sameBytes(hmacSha256(secret, delivery.body), given);
}
