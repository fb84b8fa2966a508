/** The shapes the relay's API sends and receives, as the SDK exposes them. */

export type ContentType = 'json' | 'text' | 'bytes' | 'v8';

/** A message as sent (spec 2.2, plus the `dedup_id` extension). */
export interface MessageInput<Body = unknown> {
  body: Body;
  /** Default `"json"`. `text` needs a string body; `bytes` and `v8` a base64 string. */
  content_type?: ContentType;
  /** 0 to 86400 seconds before the message can be pulled. */
  delay_seconds?: number;
  metadata?: Record<string, unknown>;
  /** 1 to 128 characters; a second send with the same id within the channel's dedup window stores nothing new. */
  dedup_id?: string;
}

/** A message as pulled (spec 2.3, plus `content_type`). */
export interface PulledMessage<Body = unknown> {
  id: string;
  body: Body;
  content_type: ContentType;
  timestamp_ms: number;
  /** Deliveries so far, this one included: 1 on the first pull. */
  attempts: number;
  metadata: Record<string, unknown>;
  lease_id: string;
}

/** A message handed to a consumer's handler: the pulled message and the channel it came from. */
export interface ConsumedMessage<Body = unknown> extends PulledMessage<Body> {
  channel: string;
}

export interface SendResult {
  id: string;
}

export interface SendBatchOptions {
  /** Default delay for messages that set no `delay_seconds` of their own. */
  delay_seconds?: number;
}

export interface SendBatchResult {
  ids: string[];
}

export interface PullOptions {
  /** 1 to 100; default 10. */
  batch_size?: number;
  /** 1000 to 43200000; default 30000. */
  visibility_timeout_ms?: number;
  /** 0 to 20000: wait up to this long for a message when none is available (long poll). */
  wait_ms?: number;
}

export interface PullResult<Body = unknown> {
  message_backlog_count: number;
  messages: PulledMessage<Body>[];
}

export interface Retry {
  lease_id: string;
  /** Seconds before the message is available again; default 0. */
  delay_seconds?: number;
}

export interface AckOptions {
  /** Leases to hand back for another delivery (a negative acknowledgement). */
  retries?: Retry[];
}

export interface AckResult {
  acked_count: number;
  /** Present when `retries` was given. */
  retried_count?: number;
}

export interface ExtendResult {
  extended_count: number;
}

export interface ChannelSummary {
  id: string;
  queued: number;
  delayed: number;
  in_flight: number;
  storage_bytes: number;
  oldest_message_ms: number | null;
}

export interface ChannelList {
  channels: ChannelSummary[];
}

/** What the relay's WebSocket subscriptions send (spec 6). */
export type RelayEvent =
  | { type: 'subscribed'; channelId?: string; channels?: string[] }
  | { type: 'new_message'; channelId: string };
