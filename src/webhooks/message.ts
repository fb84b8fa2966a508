/**
 * Turns a webhook request into the message the relay stores: the exact body
 * (valid UTF-8 as `text`, anything else as base64 `bytes`) and the request in
 * `metadata.webhook`. Its size, for storage accounting, is the raw body's
 * bytes plus the metadata's JSON: what the sender sent, whatever encoding the
 * body needs to travel as JSON.
 */
import crypto from 'node:crypto';
import type { NewMessage } from '../relay';

// ignoreBOM: a leading byte-order mark is part of the exact bytes and is kept
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface WebhookRequest {
  webhookId: string;
  method: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer;
  receivedAt: number;
  verified: boolean | null;
  dedupId: string | null;
}

function bodyOf(bytes: Buffer): { contentType: 'text' | 'bytes'; body: string } {
  try {
    return { contentType: 'text', body: strictUtf8.decode(bytes) };
  } catch {
    return { contentType: 'bytes', body: bytes.toString('base64') };
  }
}

export function webhookMessage(request: WebhookRequest): NewMessage {
  const { contentType, body } = bodyOf(request.body);
  const metadataJson = JSON.stringify({
    webhook: {
      id: request.webhookId,
      method: request.method,
      query: request.query,
      headers: request.headers,
      received_at: request.receivedAt,
      verified: request.verified,
    },
  });
  return {
    id: crypto.randomUUID(),
    delayMs: 0,
    size: request.body.length + Buffer.byteLength(metadataJson),
    contentType,
    dedupId: request.dedupId,
    metadataJson,
    bodyJson: JSON.stringify(body),
  };
}
