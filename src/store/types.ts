/** The store's interface: what HTTP and WebSocket code may ask of the queue state. */

export interface PlanLimits {
  max_storage_bytes: number;
  max_channels: number;
  retention_seconds: number;
  /** largest request body a webhook URL of the account accepts (bytes) */
  max_webhook_bytes: number;
}

export interface NewMessage {
  id: string;
  delayMs: number;
  /** bytes of the body's JSON plus the metadata's JSON */
  size: number;
  contentType: string;
  dedupId: string | null;
  metadataJson: string;
  bodyJson: string;
}

export interface PullOptions {
  visibilityTimeoutMs: number;
  batchSize: number;
}

export interface PullResult {
  backlogCount: number;
  /** each pulled message as JSON text, oldest-available first */
  messages: string[];
}

export interface Retry {
  leaseId: string;
  delayMs: number;
}

export interface AckResult {
  ackedCount: number;
  retriedCount: number;
}

export interface ChannelConfig {
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
  config: ChannelConfig;
}

export interface ConfigureChannel {
  maxAttempts?: number;
  dedupWindowSeconds?: number;
  /** undefined keeps the current dead-letter channel, null removes it */
  deadLetterChannel?: string | null;
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
}

export interface AuthLookup {
  token: TokenRecord | null;
  plan: string | null;
}

export interface QueueStore {
  send(
    account: string,
    channel: string,
    limits: PlanLimits,
    messages: NewMessage[],
  ): Promise<string[]>;
  pull(
    account: string,
    channel: string,
    limits: PlanLimits,
    options: PullOptions,
  ): Promise<PullResult>;
  ack(
    account: string,
    channel: string,
    limits: PlanLimits,
    leaseIds: string[],
    retries: Retry[],
  ): Promise<AckResult>;
  extend(
    account: string,
    channel: string,
    leaseIds: string[],
    visibilityTimeoutMs: number,
  ): Promise<number>;
}

export interface ChannelStore {
  list(account: string): Promise<ChannelStats[]>;
  get(account: string, channel: string): Promise<ChannelStats | null>;
  configure(
    account: string,
    channel: string,
    limits: PlanLimits,
    change: ConfigureChannel,
  ): Promise<ChannelConfig>;
  purge(account: string, channel: string): Promise<number>;
  remove(account: string, channel: string): Promise<number>;
  redrive(
    account: string,
    channel: string,
    limits: PlanLimits,
    to: string | null,
    max: number,
  ): Promise<number>;
}

export interface AccountStore {
  create(id: string, plan: string): Promise<AccountRecord>;
  get(id: string): Promise<AccountRecord | null>;
  setPlan(id: string, plan: string): Promise<AccountRecord>;
  remove(id: string): Promise<void>;
  createToken(account: string, token: TokenRecord): Promise<void>;
  listTokens(account: string): Promise<TokenRecord[] | null>;
  revokeToken(account: string, tokenId: string): Promise<void>;
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
}

export interface WebhookEntry extends WebhookRecord {
  created_ms: number;
  received_count: number;
  last_received_ms: number | null;
}

export interface WebhookLookup {
  webhook: WebhookRecord | null;
  plan: string | null;
}

export interface WebhookStore {
  /** Stores the webhook (creating its channel if needed); returns its creation time. */
  create(account: string, limits: PlanLimits, webhook: WebhookRecord): Promise<number>;
  /** The channel's webhooks, oldest first. */
  list(account: string, channel: string): Promise<WebhookEntry[]>;
  remove(account: string, channel: string, id: string): Promise<void>;
  lookup(account: string, id: string): Promise<WebhookLookup>;
  /** Counts an accepted delivery and notes its time. */
  recordReceived(account: string, id: string): Promise<void>;
}

export interface Store {
  queue: QueueStore;
  channels: ChannelStore;
  accounts: AccountStore;
  webhooks: WebhookStore;
  /** Redis answers PING and the scripts are loaded */
  ping(): Promise<boolean>;
}
