/**
 * The digests SQS returns and SDKs check: MD5OfMessageBody over the body's
 * UTF-8 bytes, and MD5OfMessageAttributes over the attributes encoded as SQS
 * does: names sorted; for each, the name, the data type (each as a 4-byte
 * big-endian length and UTF-8 bytes), a transport byte (1 string, 2 binary)
 * and the value (length and bytes; binary values as decoded bytes).
 */
import crypto from 'node:crypto';
import type { MessageAttribute } from './messageAttributes';

export function md5Hex(data: string | Buffer): string {
  return crypto.hash('md5', data, 'hex');
}

function lengthPrefixed(bytes: Buffer): Buffer[] {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return [length, bytes];
}

export function md5OfMessageAttributes(attributes: Record<string, MessageAttribute>): string {
  const parts: Buffer[] = [];
  for (const name of Object.keys(attributes).sort()) {
    const attribute = attributes[name];
    parts.push(...lengthPrefixed(Buffer.from(name, 'utf8')));
    parts.push(...lengthPrefixed(Buffer.from(attribute.DataType, 'utf8')));
    if (attribute.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]), ...lengthPrefixed(Buffer.from(attribute.BinaryValue, 'base64')));
    } else {
      parts.push(
        Buffer.from([1]),
        ...lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8')),
      );
    }
  }
  return md5Hex(Buffer.concat(parts));
}
