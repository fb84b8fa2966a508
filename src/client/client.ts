/** RelayClient: the relay's HTTP API as typed methods, and consume(). */
import { Consumer, type ConsumeOptions, type MessageHandler } from './consumer';
import { DEFAULT_RETRY, HttpTransport, type RetryPolicy } from './http';
import type { RelayApi } from './api';
import { Subscription, type SubscriptionOptions } from './subscription';
import type {
  AckOptions,
  AckResult,
  ChannelList,
  ExtendResult,
  MessageInput,
  PullOptions,
  PullResult,
  SendBatchOptions,
  SendBatchResult,
  SendResult,
} from './types';

export interface RelayClientOptions {
  /** The relay's base address, e.g. `https://relay.example.com`. */
  url: string;
  /** The relay API token (sent as `Authorization: Bearer <token>`). */
  token: string;
  /** Per-request timeout in ms; default 30000 (a long poll's `wait_ms` is added). */
  timeout_ms?: number;
  /** Retries of idempotent calls; default 5 tries, 200 ms doubling up to 5 s, with jitter. */
  retry?: Partial<RetryPolicy>;
  /** The fetch to use; default the global fetch. */
  fetch?: typeof fetch;
}

const messagesPath = (channel: string, action = '') =>
  `/v1/relay/channels/${encodeURIComponent(channel)}/messages${action ? `/${action}` : ''}`;

export class RelayClient implements RelayApi {
  private readonly http: HttpTransport;

  constructor(options: RelayClientOptions) {
    if (!options || typeof options.url !== 'string' || options.url === '') {
      throw new TypeError('RelayClient needs a url');
    }
    let parsed: URL | null = null;
    try {
      parsed = new URL(options.url);
    } catch {
      parsed = null;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new TypeError(`url must be an http:// or https:// address, not "${options.url}"`);
    }
    if (typeof options.token !== 'string' || options.token === '') {
      throw new TypeError('RelayClient needs a token');
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new TypeError('no global fetch: use Node 20 or later, or pass options.fetch');
    }
    this.http = new HttpTransport({
      url: options.url,
      token: options.token,
      timeout_ms: options.timeout_ms ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      fetch: fetchImpl,
    });
  }

  get url(): string {
    return this.http.url;
  }

  get token(): string {
    return this.http.token;
  }

  /**
   * Sends one message. Retried on 503 and network errors only when it carries
   * a `dedup_id` (otherwise a retry could store it twice).
   */
  send(channel: string, message: MessageInput): Promise<SendResult> {
    return this.http.call('POST', messagesPath(channel), message, {
      idempotent: typeof message?.dedup_id === 'string',
    });
  }

  /** Sends up to 100 messages, all or nothing. Retried only when every message carries a `dedup_id`. */
  sendBatch(
    channel: string,
    messages: MessageInput[],
    options: SendBatchOptions = {},
  ): Promise<SendBatchResult> {
    const body: Record<string, unknown> = { messages };
    if (options.delay_seconds !== undefined) body.delay_seconds = options.delay_seconds;
    const idempotent =
      Array.isArray(messages) &&
      messages.length > 0 &&
      messages.every((m) => typeof m?.dedup_id === 'string');
    return this.http.call('POST', messagesPath(channel, 'batch'), body, { idempotent });
  }

  /** Leases up to `batch_size` messages; with `wait_ms`, waits that long for one to arrive. */
  pull<Body = unknown>(channel: string, options: PullOptions = {}): Promise<PullResult<Body>> {
    return this.http.call('POST', messagesPath(channel, 'pull'), options, {
      idempotent: true,
      extra_timeout_ms: options.wait_ms ?? 0,
    });
  }

  /**
   * Acknowledges (deletes) the messages of these leases; `retries` hands leases
   * back for another delivery after their delay. Unknown or stale leases are ignored.
   */
  ack(
    channel: string,
    leaseIds: string[],
    options: AckOptions = {},
    signal?: AbortSignal,
  ): Promise<AckResult> {
    const body: Record<string, unknown> = { lease_ids: leaseIds };
    if (options.retries !== undefined) body.retries = options.retries;
    return this.http.call('POST', messagesPath(channel, 'ack'), body, { idempotent: true, signal });
  }

  /** Pushes the end of these leases to `visibility_timeout_ms` from now (default 30000). */
  extend(channel: string, leaseIds: string[], visibilityTimeoutMs?: number): Promise<ExtendResult> {
    const body: Record<string, unknown> = { lease_ids: leaseIds };
    if (visibilityTimeoutMs !== undefined) body.visibility_timeout_ms = visibilityTimeoutMs;
    return this.http.call('POST', messagesPath(channel, 'extend'), body, { idempotent: true });
  }

  /** The channels this token can see, with their counts. */
  channels(): Promise<ChannelList> {
    return this.http.call('GET', '/v1/relay/channels', undefined, { idempotent: true });
  }

  /**
   * A WebSocket subscription that reconnects by itself ('connected',
   * 'new_message', 'disconnected', 'error'); call open(), and close() when done.
   */
  subscribe(
    channels: string | string[],
    options: Pick<SubscriptionOptions, 'reconnect' | 'heartbeat_timeout_ms'> = {},
  ): Subscription {
    return new Subscription({
      ...options,
      url: this.url,
      token: this.token,
      channels: typeof channels === 'string' ? [channels] : channels,
    });
  }

  /** Consumes one or many channels until `await consumer.stop()`; see Consumer. */
  consume<Body = unknown>(
    channels: string | string[],
    handler: MessageHandler<Body>,
    options: ConsumeOptions = {},
  ): Consumer {
    const list = typeof channels === 'string' ? [channels] : channels;
    return new Consumer(this, list, handler as MessageHandler, options).start();
  }
}
