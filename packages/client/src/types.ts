/**
 * The shapes the relay's API sends and receives, as the SDK exposes them:
 * camelCase names (the wire's snake_case names are mapped in wire.ts).
 * Fields marked deprecated are the names before 0.2: still accepted on input
 * and readable on results, never enumerated.
 */

export type ContentType = 'json' | 'text' | 'bytes' | 'v8';

/** A message as sent. */
export interface MessageInput<Body = unknown> {
  body: Body;
  /** Default `"json"`. `text` needs a string body; `bytes` and `v8` a base64 string. */
  contentType?: ContentType;
  /** 0 to 86400 seconds before the message can be pulled. */
  delaySeconds?: number;
  metadata?: Record<string, unknown>;
  /** 1 to 128 characters; a second send with the same id within the channel's dedup window stores nothing new. */
  dedupId?: string;
  /** @deprecated use contentType */
  content_type?: ContentType;
  /** @deprecated use delaySeconds */
  delay_seconds?: number;
  /** @deprecated use dedupId */
  dedup_id?: string;
}

/** A message as pulled. */
export interface PulledMessage<Body = unknown> {
  id: string;
  body: Body;
  contentType: ContentType;
  /** When the relay stored the message, in ms since the epoch (the relay's clock). */
  timestampMs: number;
  /** Deliveries so far, this one included: 1 on the first pull. */
  attempts: number;
  metadata: Record<string, unknown>;
  /** Acknowledge, extend or retry the message with this. */
  leaseId: string;
  /** Only on messages of a dead-letter channel: where the message failed, and how often. */
  deadLetter?: { sourceChannel: string; attempts: number };
  /** @deprecated use contentType */
  readonly content_type: ContentType;
  /** @deprecated use timestampMs */
  readonly timestamp_ms: number;
  /** @deprecated use leaseId */
  readonly lease_id: string;
}

export interface SendResult {
  id: string;
}

export interface SendBatchOptions {
  /** Default delay for messages that set no `delaySeconds` of their own. */
  delaySeconds?: number;
  /** @deprecated use delaySeconds */
  delay_seconds?: number;
}

export interface SendBatchResult {
  ids: string[];
}

export interface PullOptions {
  /** 1 to 100; default 10. */
  batchSize?: number;
  /** 1000 to 43200000; default 30000. */
  visibilityTimeoutMs?: number;
  /** 0 to 20000: wait up to this long for a message when none is available (long poll). */
  waitMs?: number;
  /** @deprecated use batchSize */
  batch_size?: number;
  /** @deprecated use visibilityTimeoutMs */
  visibility_timeout_ms?: number;
  /** @deprecated use waitMs */
  wait_ms?: number;
}

export interface PullResult<Body = unknown> {
  /** Messages left available in the channel after this pull. */
  messageBacklogCount: number;
  messages: PulledMessage<Body>[];
  /** @deprecated use messageBacklogCount */
  readonly message_backlog_count: number;
}

export type Retry =
  | {
      leaseId: string;
      /** Seconds before the message is available again; default 0. */
      delaySeconds?: number;
    }
  | {
      /** @deprecated use leaseId */
      lease_id: string;
      /** @deprecated use delaySeconds */
      delay_seconds?: number;
    };

export interface AckOptions {
  /** Leases to hand back for another delivery (a negative acknowledgement). */
  retries?: Retry[];
}

export interface AckResult {
  ackedCount: number;
  /** Present when `retries` was given. */
  retriedCount?: number;
  /** @deprecated use ackedCount */
  readonly acked_count: number;
  /** @deprecated use retriedCount */
  readonly retried_count?: number;
}

export interface ExtendResult {
  extendedCount: number;
  /** @deprecated use extendedCount */
  readonly extended_count: number;
}

export interface ChannelSummary {
  id: string;
  queued: number;
  delayed: number;
  inFlight: number;
  storageBytes: number;
  oldestMessageMs: number | null;
  /** messages its push destination gave up on, kept in it as dead (redriveDead brings them back) */
  deadCount?: number;
  /** @deprecated use inFlight */
  readonly in_flight: number;
  /** @deprecated use storageBytes */
  readonly storage_bytes: number;
  /** @deprecated use oldestMessageMs */
  readonly oldest_message_ms: number | null;
}

export interface ChannelList {
  channels: ChannelSummary[];
}

/** A channel's settings (`PUT /v1/relay/channels/{id}`); fields left out keep their value. */
export interface ChannelConfig {
  /** Where messages go after `maxAttempts` deliveries; null turns dead-lettering off. */
  deadLetterChannel?: string | null;
  maxAttempts?: number;
  dedupWindowSeconds?: number;
  [setting: string]: unknown;
}

/** One channel with its counts and settings. */
export interface ChannelDetails extends ChannelSummary {
  config: ChannelConfig;
  [field: string]: unknown;
}

export interface PurgeResult {
  purgedCount: number;
}

/** A channel's routes, as the relay takes and shows them (docs/api/routes.md). */
export interface Routes {
  routes: { to: string; filter?: Record<string, unknown> }[];
  keep?: boolean;
  /** "drop" (the default) or the channel that gets a message no route matched */
  unmatched?: string;
}

/** A message as the API shows it (a pulled message's fields), for a routes test. */
export interface RouteTestMessage {
  body: unknown;
  content_type?: 'json' | 'text' | 'bytes' | 'v8';
  metadata?: Record<string, unknown>;
}

export interface RouteTestResult {
  /** the indexes of the routes the message matches */
  matched: number[];
  /** the channels that would get a copy, in order */
  channels: string[];
}

export interface DeleteChannelResult {
  deletedCount: number;
}

export interface RedriveOptions {
  /** The channel to move the dead letters to; default the channel they came from. */
  to?: string;
  /** Most messages to move, 1 to 100000; default 1000. */
  max?: number;
}

export interface RedriveResult {
  movedCount: number;
}

/** A token as the account API shows it (never with its secret, except once when created). */
export interface TokenInfo {
  id: string;
  name: string | null;
  channels: string[] | null;
  role?: 'relay' | 'owner';
  expiresMs: number | null;
  createdMs?: number;
  /** The secret token: present only in the answer that created it. */
  token?: string;
}

export interface TokenCreateOptions {
  name?: string;
  /** Channels the token may use; default every channel of the account. */
  channels?: string[];
  expiresInSeconds?: number;
  role?: 'relay' | 'owner';
}

/** The token a client uses, as the relay sees it (`GET /v1/relay/whoami`); never its secret. */
export interface WhoAmI {
  account: string;
  tokenId: string;
  role: 'relay' | 'owner';
  /** Channels the token may use; null for every channel of the account. */
  channels: string[] | null;
  expiresMs: number | null;
  plan: string;
}

/** The caller's account (owner tokens only). */
export interface AccountInfo {
  id: string;
  plan: string;
  usage?: { storageBytes: number; channels: number };
  limits: Record<string, number | null>;
  [field: string]: unknown;
}

/** What the relay's WebSocket subscriptions send. */
export type RelayEvent =
  | { type: 'subscribed'; channelId?: string; channels?: string[] }
  | { type: 'new_message'; channelId: string };

/** A history search (docs/api/history.md). */
export interface HistoryQuery {
  since?: number | string;
  until?: number | string;
  status?: 'pending' | 'in_flight' | 'acked' | 'dead' | 'expired' | 'purged';
  filter?: Record<string, unknown>;
  limit?: number;
  cursor?: string;
}

export interface HistorySummary {
  id: string;
  receivedAt: number;
  entrance: string;
  status: string;
  attempts: number;
  size: number;
  groupId: string | null;
  preview: string;
}

export interface HistoryPage {
  items: HistorySummary[];
  nextCursor: string | null;
}

export interface HistoryRecord extends HistorySummary {
  body: unknown;
  contentType: string;
  metadata: Record<string, unknown>;
  webhook: {
    method: string;
    query: string;
    headers: Record<string, string>;
    verified: boolean | null;
  } | null;
  timeline: { type: string; at: number; [field: string]: unknown }[];
}

export interface ReplayJobInput {
  since: number | string;
  until?: number | string;
  status?: HistoryQuery['status'];
  filter?: Record<string, unknown>;
  to?: string;
  ratePerSecond?: number;
  dryRun?: boolean;
}

export interface ReplayJob {
  id: string;
  state: 'planned' | 'queued' | 'running' | 'done' | 'cancelled' | 'failed';
  matched: number;
  replayed: number;
  startedAt: number | null;
  finishedAt: number | null;
  to: string;
  ratePerSecond: number;
}

/** A push destination's settings (docs/api/destinations.md). */
export interface DestinationSettings {
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  signing?: 'standard-webhooks' | 'none';
  retry?: { scheduleSeconds?: number[]; maxAttempts?: number };
  rateLimit?: { count: number; periodSeconds?: number } | null;
  parallelism?: number;
  paused?: boolean;
}

export interface Destination {
  id: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  state: 'active' | 'paused' | 'disabled';
  signing: 'standard-webhooks' | 'none';
  retry: { scheduleSeconds: number[]; maxAttempts: number };
  rateLimit: { count: number; periodSeconds: number } | null;
  parallelism: number;
  createdAt: number;
  /** on creation and rotation only */
  secret?: string;
  lastSuccessAt?: number | null;
  lastFailureAt?: number | null;
  lastFailure?: string | null;
  consecutiveFailures?: number;
  disabledReason?: string | null;
  circuitOpenUntil?: number | null;
  deadCount?: number;
}

export interface DestinationAttempt {
  messageId: string;
  attempt: number;
  startedAt: number;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: string;
}
