/**
 * The types of the history and replay stores (src/store/history.ts, replays.ts), apart so
 * that the store's interface (types.ts) does not import their implementations.
 */
import type { RecordPayload } from './records';

export type HistoryStatus = 'pending' | 'in_flight' | 'acked' | 'dead' | 'expired' | 'purged';

/** What a push destination's attempt led to: ok (acked), fail (retried or given up), gone (410). */
export type DestinationOutcome = 'ok' | 'fail' | 'gone';

export type TimelineEntry =
  | { type: 'received'; at: number; entrance: string }
  | { type: 'delivery'; at: number; attempt: number; via: 'pull' }
  | {
      type: 'delivery';
      at: number;
      attempt: number;
      via: 'destination';
      /** the receiver's HTTP status, null when there was no answer (timeout, connection) */
      status: number | null;
      duration_ms: number;
      outcome: DestinationOutcome;
    }
  | { type: 'retry'; at: number; delay_ms: number }
  | { type: 'retry'; at: number; reason: 'lease_expired' }
  | { type: 'ack'; at: number }
  | { type: 'dead_letter'; at: number; dead_letter_channel: string | null }
  | { type: 'expired'; at: number }
  | { type: 'purged'; at: number };

export interface HistoryEntry {
  id: string;
  receivedAt: number;
  entrance: string;
  status: HistoryStatus;
  attempts: number;
  size: number;
  /** the message as received (null only when a living message could not be read) */
  message: RecordPayload | null;
  timeline: TimelineEntry[];
}

/** Where a page of history continues: the last record's received_at and id. */
export interface HistoryCursor {
  at: number;
  id: string;
}

export interface HistoryScan {
  sinceMs: number;
  untilMs: number;
  cursor: HistoryCursor | null;
  /** newest first (the API's list), or oldest first (a replay job's order) */
  order: 'newest' | 'oldest';
  /** records read at most */
  max: number;
  /** entries given at most (default: max) */
  want?: number;
  /** which records to give (default: all) */
  pick?: HistoryPick;
}

/**
 * What a search gives of the records it reads: a status, and a test of the message's stored
 * texts. The store reads a living message's record only when the status may hold, and
 * builds an entry only for the records picked.
 */
export interface HistoryPick {
  status: HistoryStatus | null;
  match: ((message: RecordPayload) => boolean) | null;
}

export interface HistoryBatch {
  entries: HistoryEntry[];
  /** where to go on, or null when the range is done */
  next: HistoryCursor | null;
}

export type ReplayState = 'planned' | 'queued' | 'running' | 'done' | 'cancelled' | 'failed';

/** A job as stored (the API shows all but the bookkeeping fields). */
export interface ReplayJob {
  id: string;
  state: ReplayState;
  matched: number;
  replayed: number;
  started_at: number | null;
  finished_at: number | null;
  created_at: number;
  /** the channel the copies go to */
  to: string;
  rate_per_second: number;
  /** matched ids passed so far */
  cursor: number;
}

export interface HistoryStore {
  scan(account: string, channel: string, scan: HistoryScan): Promise<HistoryBatch>;
  get(account: string, channel: string, messageId: string): Promise<HistoryEntry | null>;
  getMany(account: string, channel: string, ids: string[]): Promise<Map<string, HistoryEntry>>;
  count(account: string, channel: string): Promise<number>;
  countAll(): Promise<number>;
}

export interface ReplayStore {
  create(account: string, channel: string, job: ReplayJob, ids: string[]): Promise<void>;
  get(account: string, channel: string, id: string): Promise<ReplayJob | null>;
  cancel(account: string, channel: string, id: string): Promise<ReplayJob>;
  active(): Promise<{ account: string; channel: string }[]>;
  claim(
    account: string,
    channel: string,
    pod: string,
    leaseMs: number,
  ): Promise<ReplayJob | 'none' | null>;
  ids(account: string, channel: string, id: string, from: number, count: number): Promise<string[]>;
  progress(
    account: string,
    channel: string,
    pod: string,
    id: string,
    passed: number,
    replayed: number,
    leaseMs: number,
  ): Promise<ReplayState | 'lost'>;
  state(account: string, channel: string, id: string): Promise<ReplayState | null>;
  busy(account: string, channel: string): Promise<boolean>;
}
