/** The store's interface: what HTTP and WebSocket code may ask of the queue state. */
import type { HistoryStore, ReplayStore } from './historyTypes';
import type { DestinationStore } from './destinationTypes';
import type { HolderKind } from './keys';
import type { Caller } from '../types';

export type { PlanLimits } from '../types';

export interface NewMessage {
  id: string;
  /** null: the channel's delay_seconds setting (0 when not set) */
  delayMs: number | null;
  /** bytes of the body's JSON plus the metadata's JSON */
  size: number;
  contentType: string;
  dedupId: string | null;
  /** the message's group (docs/api/groups.md), null for none */
  groupId?: string | null;
  metadataJson: string;
  bodyJson: string;
}

export interface SendOptions {
  /** refuse a channel that does not exist (channel_not_found) instead of creating it */
  mustExist?: boolean;
  /** the webhook a delivery came through: it must still exist; its delivery is counted */
  webhookId?: string;
  /** a cap on each message's size kept in a named channel setting (the SQS endpoint's) */
  sizeCap?: SizeCap;
  /**
   * how the messages arrived, for the channel's history; by default webhook with webhookId,
   * sqs with sizeCap, else api
   */
  entrance?: Entrance;
  /**
   * filled by the send, when given: each message's FIFO sequence number ('' on a channel that
   * is not FIFO), in the messages' order (a duplicate's is its original's; a routed message's
   * is its first copy's)
   */
  sequenceNumbers?: string[];
  /** the version of the channel's routes the pod knows ('0': none; else ROUTES_CHANGED) */
  routeVersion?: string;
}

/** How a message arrived (its history's received entry). */
export type Entrance = 'api' | 'webhook' | 'sqs' | 'route' | 'replay';

export interface PullOptions {
  /** null: the channel's visibility_timeout_ms setting, else the service default */
  visibilityTimeoutMs: number | null;
  batchSize: number;
  /** refuse a channel that does not exist (channel_not_found) instead of answering empty */
  mustExist?: boolean;
  /** the SQS ReceiveRequestAttemptId: a retry within 5 minutes gets the same leases back */
  attemptId?: string;
}

export interface PullResult {
  backlogCount: number;
  /** each pulled message as JSON text, oldest-available first */
  messages: string[];
  /** the channel's receive_wait_seconds setting in ms (SQS's default wait), null when unset */
  receiveWaitMs: number | null;
}

/** For ack and extend: refuse a channel that does not exist (channel_not_found). */
export interface LeaseOptions {
  mustExist?: boolean;
}

export interface Retry {
  leaseId: string;
  delayMs: number;
}

export interface AckResult {
  ackedCount: number;
  retriedCount: number;
}

/** The channel's settings as stored: a null setting is not set and follows its default. */
export interface ChannelSettings {
  paused: boolean;
  visibility_timeout_ms: number | null;
  delay_seconds: number | null;
  retention_seconds: number | null;
  /** the SQS endpoint's default WaitTimeSeconds for ReceiveMessage (src/sqs/) */
  receive_wait_seconds: number | null;
  /**
   * Named settings, as stored ('name=value' after the fixed ones, lua/lib/common.lua): each
   * feature reads and writes its own names (a name absent is not set).
   */
  named: Readonly<Record<string, string>>;
}

export interface ChannelConfig extends ChannelSettings {
  dead_letter_channel: string | null;
  max_attempts: number;
  dedup_window_seconds: number;
}

export interface ChannelStats {
  id: string;
  queued: number;
  delayed: number;
  in_flight: number;
  storage_bytes: number;
  oldest_message_ms: number | null;
  /** seconds since the oldest message was sent (Redis time), null when empty */
  oldest_message_age_seconds: number | null;
  /** messages whose retention ends within the next hour */
  expiring_within_1h: number;
  /** groups holding a message (docs/api/groups.md) */
  groups: number;
  /** groups whose head is in flight or waiting for a retry */
  blocked_groups: number;
  /** messages its push destination gave up on, kept as dead in it (docs/api/destinations.md) */
  dead_count: number;
  /** when the channel was created (Redis time); the SQS endpoint's CreatedTimestamp */
  created_ms: number;
  config: ChannelConfig;
}

export interface ConfigureChannel {
  maxAttempts?: number;
  dedupWindowSeconds?: number;
  /** undefined keeps the current dead-letter channel, null removes it */
  deadLetterChannel?: string | null;
  paused?: boolean;
  /** for each setting: undefined keeps it, null resets it to its default */
  visibilityTimeoutMs?: number | null;
  delaySeconds?: number | null;
  retentionSeconds?: number | null;
  receiveWaitSeconds?: number | null;
  /** named settings to change: a value sets it, null removes it ([A-Za-z0-9_] names, no '|') */
  named?: Record<string, string | null>;
}

/** A change of a channel's tags: keys removed first, then pairs set, within maxTags. */
export interface TagsChange {
  remove?: string[];
  set?: Record<string, string>;
  /** the most tags the channel may have after the change (needed with set) */
  maxTags?: number;
}

/**
 * A cap on each message's size (the SQS endpoint's): a plan limit, lowered for a channel by a
 * named channel setting, compared with sizes the caller measured its own way.
 */
export interface SizeCap {
  /** the plan limit that caps the size (bytes) */
  planLimit: string;
  /** the named channel setting that may lower it; a channel without it has the plan's */
  setting: string;
  /** each message's size as the cap counts it, in the messages' order */
  sizes: number[];
}

export interface AccountRecord {
  id: string;
  plan: string;
  created_ms: number;
  usage: { storage_bytes: number; channels: number };
}

export interface TokenRecord {
  id: string;
  name: string | null;
  channels: string[] | null;
  expires_ms: number | null;
  created_ms: number;
  role: 'relay' | 'owner';
  /** sha256 of the secret, hex */
  hash: string;
  /** 'session' for a dashboard session (a short-lived owner token held in a cookie) */
  kind?: 'session';
  /** a session's sign-in token: the session ends when that token is revoked or expires */
  parent_id?: string;
  /** this token's own request rate, below the account's (requests per second) */
  rate_limit_per_second?: number;
  /** set when the token was issued with AWS credentials for the SQS endpoint (src/sqs/) */
  aws_access_key_id?: string;
}

export interface AuthLookup {
  token: TokenRecord | null;
  plan: string | null;
}

/** A caller that passed the check: its token (null for an account caller) and plan. */
export interface Authorized {
  token: TokenRecord | null;
  plan: string;
}

/**
 * The queue operations, each one script call that also checks the caller (token, expiry,
 * revocation, channel scope, rate limits: lua/lib/caller.lua) and refuses with the
 * client's error before changing anything.
 */
export interface QueueStore {
  send(
    caller: Caller,
    channel: string,
    messages: NewMessage[],
    options?: SendOptions,
  ): Promise<string[]>;
  pull(caller: Caller, channel: string, options: PullOptions): Promise<PullResult>;
  ack(
    caller: Caller,
    channel: string,
    leaseIds: string[],
    retries: Retry[],
    options?: LeaseOptions,
  ): Promise<AckResult>;
  extend(
    caller: Caller,
    channel: string,
    leaseIds: string[],
    /** null: the channel's visibility_timeout_ms setting, else the service default */
    visibilityTimeoutMs: number | null,
    options?: LeaseOptions,
  ): Promise<number>;
  /** Gives back leases whose pull was never answered: available again, delivery not counted. */
  release(account: string, channel: string, leaseIds: string[]): Promise<number>;
}

export interface ChannelStore {
  list(account: string): Promise<ChannelStats[]>;
  get(account: string, channel: string): Promise<ChannelStats | null>;
  /** Within the plan's max_channels (the script reads the account's plan). */
  configure(account: string, channel: string, change: ConfigureChannel): Promise<ChannelConfig>;
  purge(account: string, channel: string): Promise<number>;
  remove(account: string, channel: string): Promise<number>;
  redrive(account: string, channel: string, to: string | null, max: number): Promise<number>;
  /** Changes (or, with no change, reads) a channel's tags: all or nothing; the tags after. */
  tags(account: string, channel: string, change?: TagsChange): Promise<Record<string, string>>;
}

export interface AccountStore {
  create(id: string, plan: string): Promise<AccountRecord>;
  get(id: string): Promise<AccountRecord | null>;
  setPlan(id: string, plan: string): Promise<AccountRecord>;
  remove(id: string): Promise<void>;
  /**
   * Stores a token; counted: within the plan's max_tokens, which counts the account's tokens
   * but not its sessions (false: not checked, for sessions).
   */
  createToken(account: string, token: TokenRecord, counted: boolean): Promise<void>;
  listTokens(account: string): Promise<TokenRecord[] | null>;
  revokeToken(account: string, tokenId: string): Promise<void>;
  /**
   * Checks the caller (lua/lib/caller.lua) and, when caller.count, counts its request against
   * the rate limits: one call. Refusals are the client's errors (401, 403, 429).
   */
  authorize(caller: Caller, channel: string | null): Promise<Authorized>;
  /** A token's record and its account's plan, read only (no check, nothing counted). */
  lookupToken(account: string, tokenId: string): Promise<AuthLookup>;
  count(): Promise<number>;
}

/** How a webhook's deliveries are verified; `secret` is never returned by any API. */
export interface WebhookVerify {
  scheme: 'github' | 'stripe' | 'standard-webhooks' | 'hmac-sha256';
  secret: string;
  on_failure: 'reject' | 'record';
  /** hmac-sha256 only: the header holding the signature (lower case) */
  header?: string;
  /** hmac-sha256 only */
  encoding?: 'hex' | 'base64';
  /** hmac-sha256 only: text before the signature in the header */
  prefix?: string;
}

export interface WebhookRecord {
  id: string;
  channel: string;
  label: string | null;
  /** sha256 of the URL key's secret part, hex */
  key_hash: string;
  verify: WebhookVerify | null;
  /** request header whose value is the delivery's dedup id (lower case), or null */
  dedup_header: string | null;
  /** where a delivery's group_id comes from (docs/api/groups.md); absent or null: no group */
  group_by?: WebhookGroupBy | null;
}

/** A header (lower case) or an RFC 6901 pointer into the JSON body. */
export type WebhookGroupBy = { header: string } | { json_pointer: string };

export interface WebhookEntry extends WebhookRecord {
  created_ms: number;
  received_count: number;
  last_received_ms: number | null;
  /** the last refused delivery: when, and the check that failed */
  last_refusal: { at: number; reason: string } | null;
}

export interface WebhookLookup {
  webhook: WebhookRecord | null;
  plan: string | null;
}

export interface WebhookStore {
  /** Stores the webhook (creating its channel if needed); returns its creation time. */
  create(account: string, webhook: WebhookRecord): Promise<number>;
  /** The channel's webhooks, oldest first. */
  list(account: string, channel: string): Promise<WebhookEntry[]>;
  remove(account: string, channel: string, id: string): Promise<void>;
  lookup(account: string, id: string): Promise<WebhookLookup>;
  /**
   * Notes a refused delivery as the webhook's last_refusal and counts it in the webhook's
   * refusal window; noted false (and the wait) when the window is full; gone when the
   * webhook no longer exists.
   */
  refused(
    account: string,
    id: string,
    reason: string,
  ): Promise<{ noted: boolean; gone: boolean; waitMs: number }>;
}

/** A copy of a message stored by its routes: the channel and the copy's id. */
export interface RoutedCopy {
  channel: string;
  id: string;
}

/** A message and the copies the pod chose for it: target (index into the targets), id each. */
export interface RoutedMessage extends NewMessage {
  copies: { target: number; id: string }[];
}

/** A channel's routes (lua/routes_set.lua) and the sends they choose the channels of. */
export interface RouteStore {
  /** the routes' json as stored and their version; json null and version '0': none */
  get(account: string, channel: string): Promise<{ json: string | null; version: string }>;
  /** replaces the routes (targets: every route's to and the unmatched channel); the new version */
  set(account: string, channel: string, json: string, targets: string[]): Promise<string>;
  /** false when the channel had no routes */
  remove(account: string, channel: string): Promise<boolean>;
  /**
   * Stores each message's copies in one call, if the channel's routes are still of version
   * (else the ReplyError ROUTES_CHANGED <version>): per message, its copies in order.
   */
  send(
    caller: Caller,
    channel: string,
    version: string,
    targets: string[],
    messages: RoutedMessage[],
    options?: SendOptions,
  ): Promise<RoutedCopy[][]>;
}

/** Leased places behind the account limits, shared by every pod (src/store/limits.ts). */
export interface LimitStore {
  acquireHolder(
    account: string,
    kind: HolderKind,
    holderId: string,
    cap: number,
    leaseMs: number,
  ): Promise<{ taken: boolean; held: number }>;
  releaseHolders(account: string, kind: HolderKind, holderIds: string[]): Promise<number>;
  refreshHolders(
    account: string,
    kind: HolderKind,
    holderIds: string[],
    leaseMs: number,
  ): Promise<number>;
}

export interface Store {
  queue: QueueStore;
  routes: RouteStore;
  channels: ChannelStore;
  accounts: AccountStore;
  /** counters behind the account limits (rates, concurrent holders) */
  limits: LimitStore;
  webhooks: WebhookStore;
  /** channel histories (read) and bulk replay jobs */
  history: HistoryStore;
  replays: ReplayStore;
  /** channels' push destinations (src/destinations) */
  destinations: DestinationStore;
  /** Redis answers PING and the scripts are loaded */
  ping(): Promise<boolean>;
}
