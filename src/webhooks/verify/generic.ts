/**
 * Any sender that signs the body alone with HMAC-SHA256 and puts the signature
 * in a header: `<prefix><hex or base64>` (Shopify: X-Shopify-Hmac-Sha256,
 * base64, no prefix).
 */
import { decodeSignature, header, hmacSha256, sameBytes } from './hmac';
import type { Delivery } from './types';

export interface GenericOptions {
  header: string;
  encoding: 'hex' | 'base64';
  prefix: string;
}

export function verifyHmacSha256(
  secret: string,
  options: GenericOptions,
  delivery: Delivery,
): boolean {
  const value = header(delivery.headers, options.header);
  if (value === '' || !value.startsWith(options.prefix)) return false;
  const given = decodeSignature(value.slice(options.prefix.length), options.encoding);
  return given !== null && sameBytes(hmacSha256(secret, delivery.body), given);
}
