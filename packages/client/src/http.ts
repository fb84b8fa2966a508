/**
 * One HTTP call to the relay: fetch, the envelope, and retries. A 429 or 503
 * means the relay did nothing, so every call is retried after one, waiting
 * what its Retry-After asks (else the backoff). No response at all is retried
 * only for calls that are safe to repeat (pull, ack, extend, reads, and sends
 * that carry a dedupId). Both within the retry budget (`attempts`).
 */
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js';
import { RelayError } from './errors.js';

export interface RetryPolicy extends BackoffOptions {
  /** Tries in all, the first included; 1 turns retries off. */
  attempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseMs: 200, maxMs: 5_000 };

/** A Retry-After longer than this is not waited for: the error is thrown with its retryAfterMs. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface HttpOptions {
  url: string;
  token: string;
  /** Per-try timeout in ms (a long poll's wait is added to it). */
  timeoutMs: number;
  retry: RetryPolicy;
  fetch: typeof fetch;
}

export interface CallOptions {
  /** Safe to repeat after no response (429 and 503 are retried for every call). */
  idempotent: boolean;
  /** Extra time the relay may hold the request (long poll). */
  extraTimeoutMs?: number;
  /** Aborts the waits between retries (the request itself runs to its end). */
  signal?: AbortSignal;
}

interface Envelope {
  success: boolean;
  errors: { code: number; message: string }[];
  result: unknown;
}

function isEnvelope(value: unknown): value is Envelope {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Envelope).success === 'boolean' &&
    Array.isArray((value as Envelope).errors)
  );
}

/** Retry-After in ms: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
function retryAfterMs(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : null;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

export class HttpTransport {
  private readonly base: string;

  constructor(private readonly options: HttpOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  get url(): string {
    return this.base;
  }

  get token(): string {
    return this.options.token;
  }

  /** Calls the relay and returns the envelope's `result`, or throws a RelayError. */
  async call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    call: CallOptions,
  ): Promise<T> {
    const tries = Math.max(1, this.options.retry.attempts);
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.once(method, path, body, call.extraTimeoutMs ?? 0)) as T;
      } catch (err) {
        if (!(err instanceof RelayError) || attempt + 1 >= tries || call.signal?.aborted) throw err;
        const refused = err.status === 429 || err.status === 503;
        if (!refused && !(err.status === 0 && call.idempotent)) throw err;
        const asked = err.retryAfterMs;
        if (asked !== null && asked > MAX_RETRY_AFTER_MS) throw err;
        await sleep(asked ?? backoffDelay(attempt, this.options.retry), call.signal);
        if (call.signal?.aborted) throw err;
      }
    }
  }

  private async once(
    method: string,
    path: string,
    body: unknown,
    extraMs: number,
  ): Promise<unknown> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs + extraMs),
      });
      text = await response.text();
    } catch (err) {
      // Duck-typed: fetch's errors may come from another realm (Electron, test sandboxes).
      const e = err as {
        name?: string;
        message?: string;
        cause?: { code?: string; message?: string };
      };
      const reason =
        e?.name === 'TimeoutError'
          ? `no answer within ${this.options.timeoutMs + extraMs} ms`
          : e?.cause?.code
            ? `${e.cause.code}${e.cause.message ? ` (${e.cause.message})` : ''}`
            : (e?.cause?.message ?? e?.message ?? String(err));
      throw new RelayError(0, 0, `cannot reach the relay at ${this.base}: ${reason}`, {
        cause: err,
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!isEnvelope(parsed)) {
      throw new RelayError(
        response.status,
        response.status,
        `the relay at ${this.base} answered HTTP ${response.status} without a relay envelope`,
        { retryAfterMs: retryAfterMs(response) },
      );
    }
    if (parsed.success && response.ok) return parsed.result;
    const errors =
      parsed.errors.length > 0
        ? parsed.errors
        : [{ code: response.status, message: `HTTP ${response.status}` }];
    throw new RelayError(response.status, errors[0].code, errors[0].message, {
      errors,
      retryAfterMs: retryAfterMs(response),
    });
  }
}
