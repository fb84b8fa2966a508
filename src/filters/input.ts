/**
 * What a filter sees of a stored message: its body (a JSON body, or a text body that
 * parses as JSON; undefined for any other body), and for a message that came through a
 * webhook URL the request's headers and parsed query (from `metadata.webhook`), and the
 * metadata. Each part is read on first use: a filter on headers alone never parses the body.
 */
import { fieldOf, isObject } from './values';

export interface FilterInput {
  /** undefined: no JSON body (bytes, v8, or text that is not JSON) */
  readonly body: unknown;
  /** lower-case names */
  readonly headers: Readonly<Record<string, string>>;
  /** name -> value; a repeated name -> its values in order */
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * A message as stored (a NewMessage's JSON texts, parsed when needed) or as the API
 * returns it (values). contentType: 'json' | 'text' | 'bytes' | 'v8'.
 */
export type StoredMessage =
  | { contentType: string; bodyJson: string; metadataJson: string }
  | { contentType: string; body: unknown; metadata: unknown };

const NOTHING: Readonly<Record<string, never>> = Object.freeze(Object.create(null));

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function bodyOf(message: StoredMessage): unknown {
  if (message.contentType !== 'json' && message.contentType !== 'text') return undefined;
  const body = 'bodyJson' in message ? JSON.parse(message.bodyJson) : message.body;
  if (message.contentType === 'json') return body;
  return typeof body === 'string' ? parsedJson(body) : undefined;
}

/** The query string's names and values; a repeated name gathers its values in an array. */
export function parseQuery(query: string): Record<string, string | string[]> {
  // no prototype: a name such as __proto__ is a plain key
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

/** Reads each part once, on first use. */
function once<T>(read: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = read();
      done = true;
    }
    return value;
  };
}

export function filterInputOf(message: StoredMessage): FilterInput {
  const body = once(() => bodyOf(message));
  const metadata = once(() => {
    const value = 'metadataJson' in message ? JSON.parse(message.metadataJson) : message.metadata;
    return isObject(value) ? value : NOTHING;
  });
  const webhook = () => fieldOf(metadata(), 'webhook');
  const headers = once(() => {
    const value = fieldOf(webhook(), 'headers');
    return isObject(value) ? (value as Record<string, string>) : NOTHING;
  });
  const query = once(() => {
    const value = fieldOf(webhook(), 'query');
    return typeof value === 'string' ? parseQuery(value) : NOTHING;
  });
  return {
    get body() {
      return body();
    },
    get headers() {
      return headers();
    },
    get query() {
      return query();
    },
    get metadata() {
      return metadata();
    },
  };
}
