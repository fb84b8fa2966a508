/**
 * A message to store, from what an entrance received: a relay API body (one, or a batch
 * entry), an SQS message, a webhook request (built by src/webhooks/message.ts). Checked
 * against its content type and measured here, for every entrance alike.
 */
import crypto from 'node:crypto';
import { RelayError, invalidField } from '../errors';
import { LIMITS, type MessageInput } from '../schemas/requests';
import type { NewMessage } from '../store/types';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface MessageOptions {
  /** the batch's delay_seconds, for entries that give none */
  defaultDelay?: number;
  /** where the message is in the request ('' for a single message, 'messages[3]') */
  where?: string;
  /**
   * the body's text in the request when it is exactly what JSON.stringify would make of
   * the body (src/http/jsonText.ts): stored as it came, no parse-then-stringify
   */
  sentBody?: string;
  /** the size limit (body + metadata JSON); the relay API's by default */
  maxBytes?: number;
}

/** Checks a validated message's content type against its body and measures it. */
export function newMessage(input: MessageInput, options: MessageOptions = {}): NewMessage {
  const where = options.where ?? '';
  const contentType = input.content_type ?? 'json';
  const field = where === '' ? 'body' : `${where}.body`;
  if (contentType === 'text' && typeof input.body !== 'string') {
    throw invalidField(`${field} must be a string when content_type is text`);
  }
  if (
    (contentType === 'bytes' || contentType === 'v8') &&
    (typeof input.body !== 'string' || !BASE64.test(input.body))
  ) {
    throw invalidField(`${field} must be a base64 string when content_type is ${contentType}`);
  }
  // (the size is that of the compact serialization, decisions.md: a body sent in
  // another form is stringified)
  const bodyJson = options.sentBody ?? JSON.stringify(input.body);
  const metadataJson = JSON.stringify(input.metadata ?? {});
  const size = Buffer.byteLength(bodyJson) + Buffer.byteLength(metadataJson);
  const limit = options.maxBytes ?? LIMITS.maxMessageBytes;
  if (size > limit) {
    throw new RelayError(
      'message_too_large',
      `${where === '' ? 'message' : where} is ${size} bytes; the limit is ${limit} bytes (body + metadata)`,
    );
  }
  // No delay in the request: the channel's delay_seconds setting applies (in the store).
  const delaySeconds = input.delay_seconds ?? options.defaultDelay;
  return {
    id: crypto.randomUUID(),
    delayMs: delaySeconds === undefined ? null : Math.round(delaySeconds * 1000),
    size,
    contentType,
    dedupId: input.dedup_id ?? null,
    groupId: input.group_id ?? null,
    metadataJson,
    bodyJson,
  };
}
