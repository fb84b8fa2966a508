/**
 * forward(): consumes a channel and replays each message as the HTTP request
 * it describes (forwardRequest.ts) to a target URL, as `relayq forward` does.
 * A 2xx acknowledges the message. Any other status, a timeout or a refused
 * connection is retried here, on forward's own schedule (retrySchedule, by
 * default a push destination's: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h),
 * while the message's lease is held (the consumer extends it): a target that is
 * down does not spend the channel's max_attempts, and with concurrency 1 no
 * later message is sent before it (order kept). When the schedule is spent, or
 * forward stops, the message is handed back to the channel (one delivery of its
 * max_attempts, whose dead-letter rule then applies). Requests go out with the
 * global fetch (Node 20, Electron, browsers), redirects not followed.
 */
import type { RelayClient } from './client.js';
import type { Consumer, ConsumeOptions } from './consumer.js';
import { messageRequest, targetUrl, type ForwardRequest } from './forwardRequest.js';
import type { PulledMessage } from './types.js';

export interface DeliveryReport {
  time: string;
  channel: string;
  messageId: string;
  attempts: number;
  method: string;
  url: string;
  /** the target's status; null when no response came (timeout, refused connection) */
  status: number | null;
  /** why the delivery failed without a response (e.g. `ECONNREFUSED`) */
  error: string | null;
  ms: number;
  /**
   * acked: delivered; retry: tried again by this forward after retryInSeconds (unless it
   * stops first: then handed back); handed_back: given back to the channel (schedule
   * spent, or forward stopping), whose max_attempts and dead-letter channel then apply
   */
  outcome: 'acked' | 'retry' | 'handed_back';
  retryInSeconds: number | null;
}

/** A push destination's default schedule (Svix's): 8 attempts over about 27 h. */
export const DEFAULT_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

export interface ForwardOptions extends Pick<
  ConsumeOptions,
  'concurrency' | 'visibilityTimeoutMs' | 'reconnect'
> {
  /** Per-delivery timeout; default 30000 ms. */
  timeoutMs?: number;
  /**
   * Seconds to wait before each attempt: retrySchedule[i] before attempt i + 1 (the first
   * entry is the wait before the first, usually 0); as many attempts as entries. Default
   * DEFAULT_RETRY_SCHEDULE.
   */
  retrySchedule?: number[];
  /** @deprecated use retrySchedule: the first retry's delay, doubled each attempt (8 attempts) */
  retryDelaySeconds?: number;
  /** @deprecated with retryDelaySeconds: the longest delay; default 300 s */
  maxRetryDelaySeconds?: number;
  /** Called after each delivery. */
  onDelivery?: (report: DeliveryReport) => void;
}

/** Thrown by the handler after a failed delivery was handed back (the consumer then leaves it). */
export class DeliveryFailed extends Error {}

/** Why a fetch failed without a response: the system's code (ECONNREFUSED ...) where there is one. */
function failureOf(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError') return `no response within ${timeoutMs} ms`;
  return e.cause?.code ?? e.message ?? String(err);
}

/** Sends one request; resolves with the status, rejects on timeout or network failure. */
export async function sendRequest(
  url: string,
  request: ForwardRequest,
  timeoutMs: number,
): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      // any Uint8Array (a Buffer too) is a body fetch sends as it is
      body:
        request.method === 'GET' || request.method === 'HEAD'
          ? undefined
          : (request.body as BodyInit),
      redirect: 'manual',
      signal,
    });
    // read to the end, so the connection is free and a timeout covers the whole answer
    await response.arrayBuffer();
  } catch (err) {
    throw new Error(failureOf(err, timeoutMs));
  }
  return response.status;
}

/** Seconds before redelivery after a failed attempt (1-based): base, 2 base, 4 base ... up to max. */
export function retryDelaySeconds(attempts: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

/** The schedule forward() follows: retrySchedule, or the deprecated exponential one. */
export function forwardSchedule(options: ForwardOptions): number[] {
  if (options.retrySchedule) {
    if (
      options.retrySchedule.length === 0 ||
      options.retrySchedule.some((s) => !Number.isFinite(s) || s < 0)
    )
      throw new TypeError('retrySchedule must be a non-empty list of seconds (0 or more)');
    return options.retrySchedule;
  }
  if (options.retryDelaySeconds === undefined) return DEFAULT_RETRY_SCHEDULE;
  const base = options.retryDelaySeconds;
  const max = options.maxRetryDelaySeconds ?? 300;
  return [0, ...Array.from({ length: 7 }, (_, i) => retryDelaySeconds(i + 1, base, max))];
}

export function forward(
  client: RelayClient,
  channel: string,
  target: string,
  options: ForwardOptions = {},
): Consumer {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const schedule = forwardSchedule(options);
  const stopping = new AbortController();
  const wait = (seconds: number) =>
    new Promise<void>((resolve) => {
      if (seconds <= 0 || stopping.signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, seconds * 1000);
      stopping.signal.addEventListener('abort', done);
    });
  /**
   * A retry of a Stripe or Standard Webhooks delivery (sealed by the server on arrival) goes
   * out with the provider's signature made afresh: their libraries refuse one older than 5
   * minutes. If the server cannot be asked, the signature made at the pull goes.
   */
  const sealed = (message: PulledMessage) => {
    const w = (message.metadata as { webhook?: Record<string, unknown> } | undefined)?.webhook;
    return typeof w?.replay_seal === 'string' ? w : null;
  };
  const signedAgain = async (message: PulledMessage, request: ForwardRequest) => {
    const webhook = sealed(message);
    if (!webhook) return request;
    try {
      const { headers } = await client.signAgain(channel, message);
      const again = messageRequest({
        ...message,
        metadata: { ...message.metadata, webhook: { ...webhook, headers } },
      } as PulledMessage);
      again.headers['x-relayq-attempts'] = request.headers['x-relayq-attempts'];
      return again;
    } catch {
      return request;
    }
  };
  const deliver = async (message: PulledMessage) => {
    let request = messageRequest(message);
    const url = targetUrl(target, request.query);
    let lastFailure = '';
    for (let attempt = 1; attempt <= schedule.length; attempt++) {
      if (attempt > 1 && stopping.signal.aborted) break;
      request.headers['x-relayq-attempts'] = String(attempt);
      if (attempt > 1) request = await signedAgain(message, request);
      const started = Date.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await sendRequest(url, request, timeoutMs);
      } catch (err) {
        error = (err as Error).message;
      }
      const ok = status !== null && status >= 200 && status < 300;
      const last = attempt === schedule.length || stopping.signal.aborted;
      const retryIn = ok || last ? null : schedule[attempt];
      options.onDelivery?.({
        time: new Date(started).toISOString(),
        channel,
        messageId: message.id,
        attempts: attempt,
        method: request.method,
        url,
        status,
        error,
        ms: Date.now() - started,
        outcome: ok ? 'acked' : last ? 'handed_back' : 'retry',
        retryInSeconds: retryIn,
      });
      if (ok) return;
      lastFailure = error ?? String(status);
      if (last) break;
      await wait(retryIn!);
      if (stopping.signal.aborted) {
        options.onDelivery?.({
          time: new Date().toISOString(),
          channel,
          messageId: message.id,
          attempts: attempt,
          method: request.method,
          url,
          status,
          error,
          ms: 0,
          outcome: 'handed_back',
          retryInSeconds: null,
        });
        break;
      }
    }
    // handed back now; if this ack fails, the lease lapses and it comes back anyway
    await client.ack(channel, [], { retries: [{ leaseId: message.leaseId, delaySeconds: 0 }] });
    throw new DeliveryFailed(`delivery of ${message.id} failed: ${lastFailure}`);
  };
  const consumer = client.consume(channel, deliver, {
    concurrency: options.concurrency,
    // long enough for a slow target; the consumer extends it while a delivery is retried
    visibilityTimeoutMs:
      options.visibilityTimeoutMs ?? Math.min(600_000, Math.max(60_000, timeoutMs * 2)),
    reconnect: options.reconnect,
    // never more leases than deliveries at once: a waiting lease would lapse while one retries
    batchSize: Math.min(100, options.concurrency ?? 1),
  });
  const stop = consumer.stop.bind(consumer);
  consumer.stop = (...args: Parameters<Consumer['stop']>) => {
    stopping.abort();
    return stop(...args);
  };
  return consumer;
}
