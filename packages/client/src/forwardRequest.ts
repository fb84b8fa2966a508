/**
 * The HTTP request a pulled message describes. A message that came through a
 * webhook URL carries the request in `metadata.webhook` (method, headers, raw
 * query) and its exact body bytes (`text`: UTF-8; `bytes`: base64). Any other
 * message is a POST of its body: JSON as application/json, text as text/plain,
 * bytes (and v8) as application/octet-stream. Browser-safe: bytes are a
 * Uint8Array (a Buffer is one too).
 */
import type { PulledMessage } from './types.js';

export interface ForwardRequest {
  method: string;
  /** lower-case names */
  headers: Record<string, string>;
  /** the raw query string, without "?"; "" for none */
  query: string;
  /** the exact body bytes */
  body: Uint8Array;
}

interface WebhookMetadata {
  method: string;
  query?: string;
  headers: Record<string, string>;
}

function webhookOf(message: PulledMessage): WebhookMetadata | null {
  const w = (message.metadata as { webhook?: unknown } | undefined)?.webhook as
    Partial<WebhookMetadata> | undefined;
  if (!w || typeof w !== 'object' || typeof w.method !== 'string') return null;
  if (typeof w.headers !== 'object' || w.headers === null) return null;
  return {
    method: w.method,
    query: typeof w.query === 'string' ? w.query : '',
    headers: w.headers,
  };
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The body's exact bytes. */
export function bodyBytes(message: PulledMessage): Uint8Array {
  switch (message.contentType) {
    case 'text':
      return new TextEncoder().encode(String(message.body));
    case 'bytes':
    case 'v8':
      return fromBase64(String(message.body));
    default:
      return new TextEncoder().encode(JSON.stringify(message.body));
  }
}

const DEFAULT_TYPES: Record<string, string> = {
  json: 'application/json',
  text: 'text/plain; charset=utf-8',
  bytes: 'application/octet-stream',
  v8: 'application/octet-stream',
};

/** Headers a replay must not copy: the new connection sets its own. */
const NOT_REPLAYED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
]);

export function messageRequest(message: PulledMessage): ForwardRequest {
  const webhook = webhookOf(message);
  const headers: Record<string, string> = {};
  if (webhook) {
    for (const [name, value] of Object.entries(webhook.headers)) {
      const lower = name.toLowerCase();
      if (typeof value === 'string' && !NOT_REPLAYED.has(lower)) headers[lower] = value;
    }
  } else {
    headers['content-type'] = DEFAULT_TYPES[message.contentType] ?? DEFAULT_TYPES.json;
  }
  headers['x-relayq-message-id'] = message.id;
  headers['x-relayq-attempts'] = String(message.attempts);
  return {
    method: webhook ? webhook.method : 'POST',
    headers,
    query: webhook?.query ?? '',
    body: bodyBytes(message),
  };
}

/** The target with the stored query string appended (after the target's own, if any). */
export function targetUrl(target: string, query: string): string {
  if (query === '') return target;
  const hash = target.indexOf('#');
  const base = hash < 0 ? target : target.slice(0, hash);
  return `${base}${base.includes('?') ? '&' : '?'}${query}`;
}
