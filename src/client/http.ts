/**
 * One HTTP call to the relay: fetch, the envelope, and retries. Only calls
 * that are safe to repeat are retried (pull, ack, extend, listing, and sends
 * that carry a dedup_id), and only on failures a retry may cure: no response
 * at all, or 503 (the relay's store was unreachable and the call had no effect).
 */
import { backoffDelay, sleep, type BackoffOptions } from './backoff';
import { RelayError } from './errors';

export interface RetryPolicy extends BackoffOptions {
  /** Tries in all, the first included; 1 turns retries off. */
  attempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, base_ms: 200, max_ms: 5_000 };

export interface HttpOptions {
  url: string;
  token: string;
  /** Per-try timeout in ms (a long poll's wait is added to it). */
  timeout_ms: number;
  retry: RetryPolicy;
  fetch: typeof fetch;
}

export interface CallOptions {
  /** Safe to repeat: retried on network errors and 503. */
  idempotent: boolean;
  /** Extra time the relay may hold the request (long poll). */
  extra_timeout_ms?: number;
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

function retryAfter(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (header === null) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
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
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body: unknown,
    call: CallOptions,
  ): Promise<T> {
    const tries = call.idempotent ? Math.max(1, this.options.retry.attempts) : 1;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.once(method, path, body, call.extra_timeout_ms ?? 0)) as T;
      } catch (err) {
        const retryable = err instanceof RelayError && (err.status === 0 || err.status === 503);
        if (!retryable || attempt + 1 >= tries || call.signal?.aborted) throw err;
        await sleep(backoffDelay(attempt, this.options.retry), call.signal);
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
        signal: AbortSignal.timeout(this.options.timeout_ms + extraMs),
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
          ? `no answer within ${this.options.timeout_ms + extraMs} ms`
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
        { retryAfterSeconds: retryAfter(response) },
      );
    }
    if (parsed.success && response.ok) return parsed.result;
    const errors =
      parsed.errors.length > 0
        ? parsed.errors
        : [{ code: response.status, message: `HTTP ${response.status}` }];
    throw new RelayError(response.status, errors[0].code, errors[0].message, {
      errors,
      retryAfterSeconds: retryAfter(response),
    });
  }
}
