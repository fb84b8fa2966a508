/**
 * Turns a webhook request into the message the relay stores: the exact body and the request
 * in `metadata.webhook`. A valid UTF-8 body is stored as `text` (JSON-escaped), unless
 * escaping more than doubles it (control characters, NUL bytes, which JSON writes as
 * `\u0000`): then, like a body that is not UTF-8, as base64 `bytes` (4/3 of it). Its size, for storage accounting, is what is stored (the
 * body's JSON text plus the metadata's), as for every message: a body that escapes to six
 * times its length is charged for what it takes.
 */
import crypto from 'node:crypto';
import { replaySeal, type NewMessage } from '../relay';

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
  /** the check that failed, for a delivery kept unverified (on_failure record) */
  verifyFailure?: string | null;
  dedupId: string | null;
  /** the delivery's group (the webhook's group_by), or null */
  groupId?: string | null;
  /**
   * the provider's secret, for a delivery verified with a scheme whose replays are signed
   * afresh (stripe, standard-webhooks): the message is sealed with it (replay_seal)
   */
  replaySecret?: string | null;
}

/** The body as stored: its JSON text and its content type. */
function bodyOf(bytes: Buffer): { contentType: 'text' | 'bytes'; bodyJson: string } {
  const base64 = () => ({
    contentType: 'bytes' as const,
    bodyJson: `"${bytes.toString('base64')}"`,
  });
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return base64();
  }
  const json = JSON.stringify(text);
  // quotes and backslashes escape to two characters; only \u00XX escapes go beyond that
  return Buffer.byteLength(json) > 2 * bytes.length + 2
    ? base64()
    : { contentType: 'text', bodyJson: json };
}

export function webhookMessage(request: WebhookRequest): NewMessage {
  const { contentType, bodyJson } = bodyOf(request.body);
  const id = crypto.randomUUID();
  const metadataJson = JSON.stringify({
    webhook: {
      id: request.webhookId,
      method: request.method,
      query: request.query,
      headers: request.headers,
      received_at: request.receivedAt,
      verified: request.verified,
      ...(request.verifyFailure ? { verify_failure: request.verifyFailure } : {}),
      ...(request.replaySecret && request.verified === true
        ? { replay_seal: replaySeal(request.replaySecret, id, request.body) }
        : {}),
    },
  });
  return {
    id,
    delayMs: 0,
    size: Buffer.byteLength(bodyJson) + Buffer.byteLength(metadataJson),
    contentType,
    dedupId: request.dedupId,
    groupId: request.groupId ?? null,
    metadataJson,
    bodyJson,
  };
}
