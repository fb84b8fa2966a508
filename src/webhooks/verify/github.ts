/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`. */
import { NO_MATCH, decodeSignature, header, hmacSha256, sameBytes } from './hmac';
import type { Delivery, Refusal } from './types';

export function verifyGithub(secret: string, delivery: Delivery): Refusal {
  const value = header(delivery.headers, 'x-hub-signature-256');
  if (value === '') return 'missing X-Hub-Signature-256 header';
  const given = value.startsWith('sha256=')
    ? decodeSignature(value.slice('sha256='.length), 'hex')
    : null;
  if (given === null) return 'X-Hub-Signature-256 is not sha256=<hex>';
  return sameBytes(hmacSha256(secret, delivery.body), given) ? null : NO_MATCH;
}
