/**
 * A message's size as SQS counts it (MaximumMessageSize, the plan's
 * max_sqs_message_bytes, BatchRequestTooLong): the body's UTF-8 bytes plus,
 * for each message attribute, its name, its data type and its value (a Binary
 * value as its decoded bytes). The relay's own size (body + metadata JSON) is
 * what storage counts; this one is what an SQS client was promised.
 */
import { SQS_MESSAGE_BYTES_RANGE } from '../config/plans';
import { SqsError, invalidParameter } from './errors';
import type { MessageAttribute } from './messageAttributes';

/** The most any plan's max_sqs_message_bytes may be (SQS's 1 MiB): checked before any call. */
export const MAX_SQS_MESSAGE_BYTES = SQS_MESSAGE_BYTES_RANGE[1];

export function sqsMessageSize(
  body: string,
  attributes: Record<string, MessageAttribute> | undefined,
): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, attribute] of Object.entries(attributes ?? {})) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(attribute.DataType, 'utf8');
    size +=
      attribute.BinaryValue !== undefined
        ? Buffer.from(attribute.BinaryValue, 'base64').length
        : Buffer.byteLength(attribute.StringValue ?? '', 'utf8');
  }
  return size;
}

/** A message over the size its queue and plan allow. */
export function messageTooLong(size: number, max: number): SqsError {
  return invalidParameter(
    `One or more parameters are invalid. Reason: Message must be shorter than ${max + 1} bytes; this one is ${size} bytes (body and message attributes).`,
  );
}
