/**
 * Any sender that signs the body alone with HMAC-SHA256 and puts the signature
 * in a header: `<prefix><hex or base64>` (Shopify: X-Shopify-Hmac-Sha256,
 * base64, no prefix).
 */
import { NO_MATCH, decodeSignature, header, hmacSha256, sameBytes } from './hmac';
import type { Delivery, Refusal } from './types';

export interface GenericOptions {
  header: string;
  encoding: 'hex' | 'base64';
  prefix: string;
}

export function verifyHmacSha256(
  secret: string,
  options: GenericOptions,
  delivery: Delivery,
): Refusal {
  const value = header(delivery.headers, options.header);
  if (value === '') return `missing ${options.header} header`;
  if (!value.startsWith(options.prefix))
    return `${options.header} does not start with ${JSON.stringify(options.prefix)}`;
  const given = decodeSignature(value.slice(options.prefix.length), options.encoding);
  if (given === null) return `${options.header} is not ${options.encoding}`;
  return sameBytes(hmacSha256(secret, delivery.body), given) ? null : NO_MATCH;
}
