/**
 * forward(): consumes a channel and replays each message as the HTTP request
 * it describes (forwardRequest.ts) to a target URL, as `relayq forward` does.
 * A 2xx acknowledges the message; any other status, a timeout or a refused
 * connection hands it back with a growing delay (ack `retries`), so that after
 * the channel's max attempts it is dead-lettered like any message.
 */
import http from 'node:http';
import https from 'node:https';
import type { RelayClient } from './client';
import type { Consumer, ConsumeOptions } from './consumer';
import { messageRequest, targetUrl, type ForwardRequest } from './forwardRequest';
import type { PulledMessage } from './types';

export interface DeliveryReport {
  time: string;
  channel: string;
  message_id: string;
  attempts: number;
  method: string;
  url: string;
  /** the target's status; null when no response came (timeout, refused connection) */
  status: number | null;
  /** why the delivery failed without a response */
  error: string | null;
  ms: number;
  /** acked: delivered; retry: handed back, delivered again after retry_in_seconds */
  outcome: 'acked' | 'retry';
  retry_in_seconds: number | null;
}

export interface ForwardOptions extends Pick<
  ConsumeOptions,
  'concurrency' | 'visibility_timeout_ms' | 'reconnect'
> {
  /** Per-delivery timeout; default 30000 ms. */
  timeout_ms?: number;
  /** Delay before the first redelivery of a failed message, doubled each attempt; default 1 s. */
  retry_delay_seconds?: number;
  /** Longest delay between redeliveries; default 300 s. */
  max_retry_delay_seconds?: number;
  /** Called after each delivery. */
  onDelivery?: (report: DeliveryReport) => void;
}

/** Thrown by the handler after a failed delivery was handed back (the consumer then leaves it). */
export class DeliveryFailed extends Error {}

/** Sends one request; resolves with the status, rejects on timeout or network failure. */
export function sendRequest(
  url: string,
  request: ForwardRequest,
  timeoutMs: number,
): Promise<number> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: request.method,
        headers: { ...request.headers, 'content-length': String(request.body.length) },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
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
  const timeoutMs = options.timeout_ms ?? 30_000;
  const base = options.retry_delay_seconds ?? 1;
  const max = options.max_retry_delay_seconds ?? 300;
  const deliver = async (message: PulledMessage) => {
    const request = messageRequest(message);
    const url = targetUrl(target, request.query);
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await sendRequest(url, request, timeoutMs);
    } catch (err) {
      error = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
    const ok = status !== null && status >= 200 && status < 300;
    const retryIn = ok ? null : retryDelaySeconds(message.attempts, base, max);
    options.onDelivery?.({
      time: new Date(started).toISOString(),
      channel,
      message_id: message.id,
      attempts: message.attempts,
      method: request.method,
      url,
      status,
      error,
      ms: Date.now() - started,
      outcome: ok ? 'acked' : 'retry',
      retry_in_seconds: retryIn,
    });
    if (!ok) {
      // handed back now, with the delay; if this ack fails, the lease lapses and it comes back anyway
      await client.ack(channel, [], {
        retries: [{ lease_id: message.lease_id, delay_seconds: retryIn! }],
      });
    }
    if (!ok) throw new DeliveryFailed(`delivery of ${message.id} failed: ${error ?? status}`);
  };
  return client.consume(channel, deliver, {
    concurrency: options.concurrency,
    // long enough for a slow target; the consumer extends it for longer deliveries
    visibility_timeout_ms:
      options.visibility_timeout_ms ?? Math.min(600_000, Math.max(60_000, timeoutMs * 2)),
    reconnect: options.reconnect,
    batch_size: 10,
  });
}
