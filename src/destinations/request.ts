/**
 * The request a message makes to a destination (docs/api/destinations.md): a message that
 * came through a webhook URL is replayed as received (its method, headers, query and exact
 * body bytes, as `relayq forward` does); any other is a POST of its body with its metadata in
 * X-Relayq-Metadata. Always X-Relayq-Message-Id, X-Relayq-Attempts and the destination's
 * headers, and, unless signing is none, fresh Standard Webhooks headers (stored webhook-*
 * headers are then kept as X-Relayq-Original-<name>).
 */
import { bodyBytes, type DestinationRecord } from '../relay';
import { signedHeaders } from './signing';

interface PulledMessage {
  id: string;
  body: unknown;
  content_type: 'json' | 'text' | 'bytes' | 'v8';
  metadata: Record<string, unknown>;
}

interface WebhookMetadata {
  id?: string;
  method: string;
  query: string;
  headers: Record<string, string>;
  verified?: boolean | null;
}

const NOT_REPLAYED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
]);
const CONTENT_TYPES = {
  json: 'application/json',
  text: 'text/plain; charset=utf-8',
  bytes: 'application/octet-stream',
  v8: 'application/octet-stream',
};
const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

function webhookOf(metadata: Record<string, unknown>): WebhookMetadata | null {
  const w = metadata?.webhook as Partial<WebhookMetadata> | undefined;
  if (!w || typeof w !== 'object' || typeof w.method !== 'string') return null;
  if (typeof w.headers !== 'object' || w.headers === null) return null;
  return {
    method: w.method,
    query: typeof w.query === 'string' ? w.query : '',
    headers: w.headers,
  };
}

function withQuery(target: string, query: string): string {
  if (query === '') return target;
  const url = new URL(target);
  url.search = url.search ? `${url.search}&${query}` : `?${query}`;
  return url.toString();
}

export interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

export function destinationRequest(
  destination: DestinationRecord,
  messageJson: string,
  attempt: number,
  nowMs: number,
): BuiltRequest {
  const m = JSON.parse(messageJson) as PulledMessage;
  const webhook = webhookOf(m.metadata);
  const body = bodyBytes(m);
  const headers: Record<string, string> = {};
  const signing = destination.config.signing !== 'none';
  if (webhook) {
    // a verified delivery's provider signature was made afresh already (relay.webhooks.resign)
    const replayed: Record<string, string> = {};
    for (const [name, value] of Object.entries(webhook.headers)) {
      const lower = name.toLowerCase();
      if (typeof value === 'string' && !NOT_REPLAYED.has(lower)) replayed[lower] = value;
    }
    for (const [lower, value] of Object.entries(replayed)) {
      // the destination's own signature wins; the provider's original stays as X-Relayq-Original-*
      if (signing && SIGNATURE_HEADERS.includes(lower)) {
        const original = `x-relayq-original-${lower}`;
        if (replayed[original] === undefined) headers[original] = value;
      } else headers[lower] = value;
    }
  } else {
    headers['content-type'] = CONTENT_TYPES[m.content_type] ?? CONTENT_TYPES.json;
    headers['x-relayq-metadata'] = JSON.stringify(m.metadata ?? {});
  }
  for (const [name, value] of Object.entries(destination.config.headers))
    headers[name.toLowerCase()] = value;
  headers['x-relayq-message-id'] = m.id;
  headers['x-relayq-attempts'] = String(attempt);
  if (signing) {
    const secrets = [destination.secret];
    if (destination.previous_secret) secrets.push(destination.previous_secret);
    Object.assign(headers, signedHeaders(secrets, m.id, nowMs, body));
  }
  return {
    url: withQuery(destination.config.url, webhook?.query ?? ''),
    method: webhook ? webhook.method : 'POST',
    headers,
    body,
  };
}
