/** The shapes of a channel's push destination as the store keeps them (src/store/destinations.ts). */

export interface DestinationConfig {
  url: string;
  headers: Record<string, string>;
  timeout_ms: number;
  signing: 'standard-webhooks' | 'none';
  retry: { schedule_seconds: number[]; max_attempts: number };
  rate_limit: { count: number; period_seconds: number } | null;
  parallelism: number;
}

export type DestinationState = 'active' | 'paused' | 'disabled';

export interface DestinationRecord {
  id: string;
  channel: string;
  config: DestinationConfig;
  state: DestinationState;
  created_ms: number;
  secret: string;
  /** the secret replaced by a rotation, while it still signs */
  previous_secret: string | null;
  last_success_ms: number | null;
  last_failure_ms: number | null;
  last_failure: string | null;
  consecutive_failures: number;
  disabled_reason: string | null;
  /** the circuit breaker holds deliveries until then (ms; 0: closed) */
  open_until_ms: number;
  /** messages it gave up on, kept as dead in the channel */
  dead_count: number;
}

export interface DestinationChange {
  config?: DestinationConfig;
  state?: 'active' | 'paused';
  secret?: string;
  /** how long a replaced secret still signs (ms) */
  previousMs?: number;
}

/** A message leased for one attempt: the pull's message JSON and the destination's attempt number. */
export interface TakenMessage {
  leaseId: string;
  messageJson: string;
  attempt: number;
}

export interface TakeResult {
  status: 'ok' | 'idle' | 'wait' | 'gone';
  waitMs: number;
  messages: TakenMessage[];
}

export interface AttemptOutcome {
  leaseId: string;
  outcome: 'ok' | 'gone' | 'fail';
  retryAfterMs: number | null;
  failure: string;
  /** the attempt's log entry (JSON text) */
  entry: string;
  /** the attempt's number, duration and HTTP status (null: no answer), for the history */
  attempt: number;
  durationMs: number;
  status: number | null;
}

/** The pod's settings every recorded outcome is judged by. */
export interface OutcomeSettings {
  logMax: number;
  cooldownMs: number;
  disableAfterMs: number;
}

export interface AttemptResult {
  result: 'acked' | 'retry' | 'dead' | 'dead_lettered' | 'disabled' | 'stale';
  delayMs: number;
  breakerOpenedMs: number;
}

export interface DestinationStore {
  /** Creates (mode create: the channel too, within the plan) or changes a destination. */
  save(
    account: string,
    channel: string,
    id: string,
    mode: 'create' | 'update',
    change: DestinationChange,
  ): Promise<{ createdMs: number; state: DestinationState }>;
  get(account: string, channel: string): Promise<DestinationRecord | null>;
  /** Deletes it; its dead messages become available again (returns how many). */
  remove(account: string, channel: string, id: string): Promise<number>;
  redrive(account: string, channel: string, id: string, max: number): Promise<number>;
  /** The attempts log, newest first: entries [offset, offset + limit) and whether more follow. */
  attempts(
    account: string,
    channel: string,
    offset: number,
    limit: number,
  ): Promise<{ entries: string[]; more: boolean }>;
  take(account: string, channel: string, id: string, max: number): Promise<TakeResult>;
  /**
   * Records outcomes in the order they ended (a result per outcome, in order), then takes up
   * to takeMax messages as take() does, in one call.
   */
  settle(
    account: string,
    channel: string,
    id: string,
    outcomes: readonly AttemptOutcome[],
    settings: OutcomeSettings,
    takeMax: number,
  ): Promise<{ results: AttemptResult[]; taken: TakeResult }>;
  /** Every channel with a destination, service-wide. */
  all(): Promise<{ account: string; channel: string }[]>;
}
