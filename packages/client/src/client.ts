/** RelayClient: the relay's HTTP API as typed methods, and consume(). */
import type { RelayApi } from './api.js';
import { backoffOptions } from './backoff.js';
import { Consumer, type ConsumeOptions, type MessageHandler } from './consumer.js';
import { DEFAULT_RETRY, HttpTransport, type RetryPolicy } from './http.js';
import { Subscription, type SubscriptionOptions } from './subscription.js';
import type {
  AccountInfo,
  AckOptions,
  AckResult,
  ChannelConfig,
  ChannelDetails,
  ChannelList,
  DeleteChannelResult,
  Routes,
  RouteTestMessage,
  RouteTestResult,
  ExtendResult,
  MessageInput,
  PullOptions,
  PullResult,
  PurgeResult,
  RedriveOptions,
  RedriveResult,
  SendBatchOptions,
  SendBatchResult,
  SendResult,
  TokenCreateOptions,
  TokenInfo,
  WhoAmI,
  HistoryPage,
  HistoryQuery,
  HistoryRecord,
  ReplayJob,
  ReplayJobInput,
  Destination,
  PulledMessage,
  DestinationAttempt,
  DestinationSettings,
} from './types.js';
import { fromWire, option, toWire } from './wire.js';

export interface RelayClientOptions {
  /** The relay's base address, e.g. `https://relay.example.com`. */
  url: string;
  /** The relay API token (sent as `Authorization: Bearer <token>`). */
  token: string;
  /** Per-request timeout in ms; default 30000 (a long poll's `waitMs` is added). */
  timeoutMs?: number;
  /**
   * The retry budget: tries in all (default 5) and the backoff between them
   * (200 ms doubling up to 5 s, with jitter) when the relay sent no Retry-After.
   */
  retry?: Partial<RetryPolicy>;
  /** The fetch to use; default the global fetch. */
  fetch?: typeof fetch;
  /** @deprecated use timeoutMs */
  timeout_ms?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const channelPath = (channel: string) => `/v1/relay/channels/${encodeURIComponent(channel)}`;
const destinationPath = (channel: string, id: string) =>
  `${channelPath(channel)}/destinations/${encodeURIComponent(id)}`;
const messagesPath = (channel: string, action = '') =>
  `${channelPath(channel)}/messages${action ? `/${action}` : ''}`;
const hasDedupId = (m: MessageInput | undefined) =>
  typeof m?.dedupId === 'string' || typeof m?.dedup_id === 'string';

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
      timeoutMs: option<number>(options, 'timeoutMs') ?? 30_000,
      retry: {
        attempts: options.retry?.attempts ?? DEFAULT_RETRY.attempts,
        ...backoffOptions(DEFAULT_RETRY, options.retry),
      },
      fetch: fetchImpl.bind(globalThis),
    });
  }

  get url(): string {
    return this.http.url;
  }

  get token(): string {
    return this.http.token;
  }

  private async call<T>(
    method: Method,
    path: string,
    body: unknown,
    call: { idempotent: boolean; extraTimeoutMs?: number; signal?: AbortSignal },
  ): Promise<T> {
    const wire = body === undefined ? undefined : toWire(body);
    return fromWire<T>(await this.http.call(method, path, wire, call));
  }

  /**
   * Sends one message. Retried after 429 and 503 (nothing was stored); after
   * no response only when it carries a `dedupId` (otherwise a retry could store it twice).
   */
  send(channel: string, message: MessageInput): Promise<SendResult> {
    return this.call('POST', messagesPath(channel), message, { idempotent: hasDedupId(message) });
  }

  /** Sends up to 100 messages, all or nothing. Retried after no response only when every message carries a `dedupId`. */
  sendBatch(
    channel: string,
    messages: MessageInput[],
    options: SendBatchOptions = {},
  ): Promise<SendBatchResult> {
    const idempotent = Array.isArray(messages) && messages.length > 0 && messages.every(hasDedupId);
    return this.call(
      'POST',
      messagesPath(channel, 'batch'),
      { messages, delaySeconds: option<number>(options, 'delaySeconds') },
      { idempotent },
    );
  }

  /** Leases up to `batchSize` messages; with `waitMs`, waits that long for one to arrive. */
  pull<Body = unknown>(channel: string, options: PullOptions = {}): Promise<PullResult<Body>> {
    return this.call('POST', messagesPath(channel, 'pull'), options, {
      idempotent: true,
      extraTimeoutMs: option<number>(options, 'waitMs') ?? 0,
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
    return this.call(
      'POST',
      messagesPath(channel, 'ack'),
      { leaseIds, retries: options.retries },
      { idempotent: true, signal },
    );
  }

  /** Pushes the end of these leases to `visibilityTimeoutMs` from now (default 30000). */
  extend(channel: string, leaseIds: string[], visibilityTimeoutMs?: number): Promise<ExtendResult> {
    return this.call(
      'POST',
      messagesPath(channel, 'extend'),
      { leaseIds, visibilityTimeoutMs },
      { idempotent: true },
    );
  }

  /** The channels this token can see, with their counts. */
  channels(): Promise<ChannelList> {
    return this.call('GET', '/v1/relay/channels', undefined, { idempotent: true });
  }

  /** One channel's counts and settings. */
  channel(channel: string): Promise<ChannelDetails> {
    return this.call('GET', channelPath(channel), undefined, { idempotent: true });
  }

  /** Changes a channel's settings (fields left out keep their value); returns the channel. */
  configureChannel(channel: string, config: ChannelConfig): Promise<ChannelDetails> {
    return this.call('PUT', channelPath(channel), config, { idempotent: true });
  }

  /** Deletes every message of a channel (queued, delayed, in flight); keeps its settings. */
  purge(channel: string): Promise<PurgeResult> {
    return this.call('POST', messagesPath(channel, 'purge'), {}, { idempotent: true });
  }

  /** Deletes a channel: its messages and its settings. */
  deleteChannel(channel: string): Promise<DeleteChannelResult> {
    return this.call('DELETE', channelPath(channel), undefined, { idempotent: true });
  }

  /**
   * A channel's routes (docs/api/routes.md). Routes and filters are data: sent and answered
   * as they are, never renamed.
   */
  routes(channel: string): Promise<Routes> {
    return this.http.call('GET', `${channelPath(channel)}/routes`, undefined, { idempotent: true });
  }

  /** Replaces a channel's routes (every later send to it fans out by them). */
  setRoutes(channel: string, routes: Routes): Promise<Routes> {
    return this.http.call('PUT', `${channelPath(channel)}/routes`, routes, { idempotent: true });
  }

  /** Removes a channel's routes; `deleted` false when it had none. */
  deleteRoutes(channel: string): Promise<{ deleted: boolean }> {
    return this.http.call('DELETE', `${channelPath(channel)}/routes`, undefined, {
      idempotent: true,
    });
  }

  /** Which of a channel's routes a message (as the API shows it) matches; nothing is stored. */
  testRoutes(channel: string, message: RouteTestMessage): Promise<RouteTestResult> {
    return this.http.call(
      'POST',
      `${channelPath(channel)}/routes/test`,
      { message },
      {
        idempotent: true,
      },
    );
  }

  /** Moves up to `max` dead letters of a channel back (or to `to`). Not repeated after no response. */
  redrive(channel: string, options: RedriveOptions = {}): Promise<RedriveResult> {
    return this.call('POST', messagesPath(channel, 'redrive'), options, { idempotent: false });
  }

  /**
   * Makes up to `max` (default 1000) of the channel's dead messages (those its push destination
   * gave up on: `deadCount`) available again, with fresh attempts. Not repeated after no response.
   */
  redriveDead(channel: string, options: { max?: number } = {}): Promise<RedriveResult> {
    return this.call('POST', `${channelPath(channel)}/redrive`, options, { idempotent: false });
  }

  /**
   * The webhook headers of a pulled Stripe or Standard Webhooks delivery with the provider's
   * signature made afresh by the server now (the secret never leaves it); for a consumer that
   * retries a message it holds (forward() does). A 400 for any other message.
   */
  signAgain(channel: string, message: PulledMessage): Promise<{ headers: Record<string, string> }> {
    const { id, body, contentType, metadata } = message;
    return this.call(
      'POST',
      `${channelPath(channel)}/webhooks/signatures`,
      { message: { id, body, contentType, metadata } },
      { idempotent: true },
    );
  }

  /** Creates the channel's push destination (docs/api/destinations.md); its secret is in this answer only. */
  createDestination(channel: string, settings: DestinationSettings): Promise<Destination> {
    return this.call('POST', `${channelPath(channel)}/destinations`, settings, {
      idempotent: false,
    });
  }

  /** The channel's push destinations (at most one). */
  destinations(channel: string): Promise<{ destinations: Destination[] }> {
    return this.call('GET', `${channelPath(channel)}/destinations`, undefined, {
      idempotent: true,
    });
  }

  /** One push destination with its delivery state. */
  destination(channel: string, id: string): Promise<Destination> {
    return this.call('GET', destinationPath(channel, id), undefined, { idempotent: true });
  }

  /** Changes, pauses (`{paused: true}`), resumes, re-enables (`{state: 'active'}`) or rotates (`{rotateSecret: true}`). */
  updateDestination(
    channel: string,
    id: string,
    change: Partial<DestinationSettings> & { state?: 'active'; rotateSecret?: boolean },
  ): Promise<Destination> {
    return this.call('PATCH', destinationPath(channel, id), change, { idempotent: true });
  }

  deleteDestination(channel: string, id: string): Promise<{ deleted: boolean }> {
    return this.call('DELETE', destinationPath(channel, id), undefined, { idempotent: true });
  }

  /** The destination's latest attempts, newest first. */
  destinationAttempts(
    channel: string,
    id: string,
    options: { limit?: number; cursor?: string } = {},
  ): Promise<{ attempts: DestinationAttempt[]; nextCursor: string | null }> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    const q = query.toString();
    return this.call(
      'GET',
      `${destinationPath(channel, id)}/attempts${q ? `?${q}` : ''}`,
      undefined,
      {
        idempotent: true,
      },
    );
  }

  /**
   * A page of a channel's message history, newest first (docs/api/history.md): `since`,
   * `until` (epoch ms or ISO-8601), `status`, `filter` (a filter object), `limit`, `cursor`.
   */
  history(channel: string, query: HistoryQuery = {}): Promise<HistoryPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      params.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    const qs = params.toString();
    return this.call('GET', `${channelPath(channel)}/history${qs ? `?${qs}` : ''}`, undefined, {
      idempotent: true,
    });
  }

  /** One message of a channel's history: as received, with its timeline. */
  historyRecord(channel: string, messageId: string): Promise<HistoryRecord> {
    return this.call(
      'GET',
      `${channelPath(channel)}/history/${encodeURIComponent(messageId)}`,
      undefined,
      { idempotent: true },
    );
  }

  /** Stores a copy of a message of the history in `to` (default the same channel). */
  replayMessage(channel: string, messageId: string, to?: string): Promise<SendResult> {
    return this.call(
      'POST',
      `${channelPath(channel)}/history/${encodeURIComponent(messageId)}/replay`,
      { to },
      { idempotent: false },
    );
  }

  /** Starts a bulk replay job (or, with dryRun, counts what it would replay). */
  createReplay(channel: string, job: ReplayJobInput): Promise<ReplayJob> {
    // the filter goes as JSON text: its keys are the relay's, never renamed
    const { filter, ...rest } = job;
    const body = { ...rest, filter: filter === undefined ? undefined : JSON.stringify(filter) };
    return this.call('POST', `${channelPath(channel)}/replays`, body, { idempotent: false });
  }

  /** A bulk replay job's progress. */
  replayJob(channel: string, id: string): Promise<ReplayJob> {
    return this.call(
      'GET',
      `${channelPath(channel)}/replays/${encodeURIComponent(id)}`,
      undefined,
      {
        idempotent: true,
      },
    );
  }

  /** Cancels a bulk replay job. */
  cancelReplay(channel: string, id: string): Promise<ReplayJob> {
    return this.call(
      'DELETE',
      `${channelPath(channel)}/replays/${encodeURIComponent(id)}`,
      undefined,
      {
        idempotent: true,
      },
    );
  }

  /** The token's account, role, channels and expiry (any token). */
  whoami(): Promise<WhoAmI> {
    return this.call('GET', '/v1/relay/whoami', undefined, { idempotent: true });
  }

  /** The caller's account with its usage and limits (owner tokens). */
  account(): Promise<AccountInfo> {
    return this.call('GET', '/v1/account', undefined, { idempotent: true });
  }

  /** The account's tokens, without secrets (owner tokens). */
  tokens(): Promise<{ tokens: TokenInfo[] }> {
    return this.call('GET', '/v1/account/tokens', undefined, { idempotent: true });
  }

  /** Creates a token; its secret (`token`) is in this answer only (owner tokens). */
  createToken(options: TokenCreateOptions = {}): Promise<TokenInfo & { token: string }> {
    return this.call('POST', '/v1/account/tokens', options, { idempotent: false });
  }

  /** Revokes a token by its id (owner tokens). */
  revokeToken(tokenId: string): Promise<{ id: string; revoked: boolean }> {
    return this.call('DELETE', `/v1/account/tokens/${encodeURIComponent(tokenId)}`, undefined, {
      idempotent: true,
    });
  }

  /**
   * A WebSocket subscription that reconnects by itself ('connected',
   * 'new_message', 'disconnected', 'error'); call open(), and close() when done.
   */
  subscribe(
    channels: string | string[],
    options: Pick<SubscriptionOptions, 'reconnect' | 'heartbeatTimeoutMs'> = {},
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
