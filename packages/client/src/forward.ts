/**
 * forward(): consumes a channel and replays each message as the HTTP request
 * it describes (forwardRequest.ts) to a target URL, as `relayq forward` does.
 * A 2xx acknowledges the message; any other status, a timeout or a refused
 * connection hands it back with a growing delay (ack `retries`), so that after
 * the channel's max attempts it is dead-lettered like any message. Requests go
 * out with the global fetch (Node 20, Electron, browsers), redirects not followed.
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
  /** acked: delivered; retry: handed back, delivered again after retryInSeconds */
  outcome: 'acked' | 'retry';
  retryInSeconds: number | null;
}

export interface ForwardOptions extends Pick<
  ConsumeOptions,
  'concurrency' | 'visibilityTimeoutMs' | 'reconnect'
> {
  /** Per-delivery timeout; default 30000 ms. */
  timeoutMs?: number;
  /** Delay before the first redelivery of a failed message, doubled each attempt; default 1 s. */
  retryDelaySeconds?: number;
  /** Longest delay between redeliveries; default 300 s. */
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

export function forward(
  client: RelayClient,
  channel: string,
  target: string,
  options: ForwardOptions = {},
): Consumer {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const base = options.retryDelaySeconds ?? 1;
  const max = options.maxRetryDelaySeconds ?? 300;
  const deliver = async (message: PulledMessage) => {
    const request = messageRequest(message);
    const url = targetUrl(target, request.query);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await sendRequest(url, request, timeoutMs);
    } catch (err) {
      error = (err as Error).message;
    }
    const ok = status !== null && status >= 200 && status < 300;
    const retryIn = ok ? null : retryDelaySeconds(message.attempts, base, max);
    options.onDelivery?.({
      time: new Date(started).toISOString(),
      channel,
      messageId: message.id,
      attempts: message.attempts,
      method: request.method,
      url,
      status,
      error,
      ms: Date.now() - started,
      outcome: ok ? 'acked' : 'retry',
      retryInSeconds: retryIn,
    });
    if (!ok) {
      // handed back now, with the delay; if this ack fails, the lease lapses and it comes back anyway
      await client.ack(channel, [], {
        retries: [{ leaseId: message.leaseId, delaySeconds: retryIn! }],
      });
      throw new DeliveryFailed(`delivery of ${message.id} failed: ${error ?? status}`);
    }
  };
  return client.consume(channel, deliver, {
    concurrency: options.concurrency,
    // long enough for a slow target; the consumer extends it for longer deliveries
    visibilityTimeoutMs:
      options.visibilityTimeoutMs ?? Math.min(600_000, Math.max(60_000, timeoutMs * 2)),
    reconnect: options.reconnect,
    batchSize: 10,
  });
}
