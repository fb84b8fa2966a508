/**
 * A channel's message history (docs/api/history.md): search it, show one record with its
 * timeline, and replay one message. Knows nothing of HTTP: the query's values come in as
 * strings (a URL's query, a CLI's flags) and are checked here, each bad one a 400 naming it.
 */
import crypto from 'node:crypto';
import { invalidField, RelayError } from '../errors';
import { FilterError, filterInputOf, matches, parseFilter, type Filter } from '../filters';
import { describeIdRule, isValidId } from '../schemas/ids';
import type {
  HistoryCursor,
  HistoryEntry,
  HistoryPick,
  HistoryStatus,
  TimelineEntry,
} from '../store/historyTypes';
import type { RecordPayload } from '../store/records';
import type { NewMessage } from '../store/types';
import type { Caller } from '../types';
import { authorize } from './authorize';
import type { RelayDeps } from './deps';

export const HISTORY_STATUSES: readonly HistoryStatus[] = [
  'pending',
  'in_flight',
  'acked',
  'dead',
  'expired',
  'purged',
];
export const MAX_HISTORY_PAGE = 100;
export const DEFAULT_HISTORY_PAGE = 50;
export const PREVIEW_CHARS = 200;
/** Records one list request reads at most looking for matches (then it answers a cursor). */
const SCAN_PER_REQUEST = 20_000;

/** What a search selects: a range of received_at, a status, a filter. */
export interface HistorySelection {
  sinceMs: number;
  untilMs: number;
  status: HistoryStatus | null;
  filter: Filter | null;
}

export interface HistorySummary {
  id: string;
  received_at: number;
  entrance: string;
  status: HistoryStatus;
  attempts: number;
  size: number;
  group_id: string | null;
  preview: string;
}

export interface HistoryDetail extends HistorySummary {
  body: unknown;
  content_type: string;
  metadata: Record<string, unknown>;
  webhook: {
    method: string;
    query: string;
    headers: Record<string, string>;
    verified: boolean | null;
  } | null;
  timeline: TimelineEntry[];
}

/** A time as the API takes it: epoch milliseconds or ISO-8601. */
export function parseTime(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    if (/^\d{1,16}$/.test(value)) return Number(value);
    if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
      const ms = Date.parse(value);
      if (!Number.isNaN(ms)) return ms;
    }
  }
  throw invalidField(`${name} must be epoch milliseconds or an ISO-8601 time`);
}

function parseStatus(value: unknown): HistoryStatus | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string' && (HISTORY_STATUSES as readonly string[]).includes(value)) {
    return value as HistoryStatus;
  }
  throw invalidField(`status must be one of ${HISTORY_STATUSES.join(', ')}`);
}

/** A filter given as JSON text (a URL's query) or as a value (a JSON body). */
export function parseFilterParam(value: unknown): Filter | null {
  if (value === undefined || value === null || value === '') return null;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw invalidField('filter must be a JSON filter (docs/api/filters.md)');
    }
  }
  try {
    return parseFilter(parsed, 'filter');
  } catch (err) {
    if (err instanceof FilterError) throw invalidField(err.message);
    throw err;
  }
}

/** since, until (default: now), status and filter, from a query or a body. */
export function parseSelection(
  input: Record<string, unknown>,
  nowMs: number,
  sinceRequired = false,
): HistorySelection {
  if (sinceRequired && (input.since === undefined || input.since === '')) {
    throw invalidField('since is required (epoch milliseconds or an ISO-8601 time)');
  }
  const sinceMs =
    input.since === undefined || input.since === '' ? 0 : parseTime(input.since, 'since');
  const untilMs =
    input.until === undefined || input.until === '' ? nowMs : parseTime(input.until, 'until');
  if (untilMs < sinceMs) throw invalidField('until must not be before since');
  return {
    sinceMs,
    untilMs,
    status: parseStatus(input.status),
    filter: parseFilterParam(input.filter),
  };
}

function parseLimit(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_HISTORY_PAGE;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_HISTORY_PAGE) {
    throw invalidField(`limit must be a whole number from 1 to ${MAX_HISTORY_PAGE}`);
  }
  return n;
}

function encodeCursor(c: HistoryCursor): string {
  return `${c.at}.${c.id}`;
}

function parseCursor(value: unknown): HistoryCursor | null {
  if (value === undefined || value === '') return null;
  const m = typeof value === 'string' ? /^(\d{1,16})\.([A-Za-z0-9_-]{22})$/.exec(value) : null;
  if (!m) throw invalidField('cursor must be a next_cursor of an earlier page');
  return { at: Number(m[1]), id: m[2] };
}

export function messageIdParam(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw invalidField('messageId must be a message id (a UUID)');
  }
  return value.toLowerCase();
}

const notInHistory = (channel: string, id: string) =>
  new RelayError('history_not_found', `message ${id} is not in the history of channel ${channel}`);

/** The pick of a selection: its status, and its filter on the stored message. */
function pickOf(selection: HistorySelection): HistoryPick | undefined {
  const { status, filter } = selection;
  if (!status && !filter) return undefined;
  return { status, match: filter ? matcherOf(filter) : null };
}

function matcherOf(filter: Filter): (message: RecordPayload) => boolean {
  return (message) => {
    // most records of a search do not match: ruled out from their text, most are never parsed
    if (!filter.mayMatch(message)) return false;
    try {
      return matches(filter, filterInputOf(message));
    } catch {
      return false;
    }
  };
}

function metadataOf(entry: HistoryEntry): Record<string, unknown> {
  if (!entry.message) return {};
  try {
    const value: unknown = JSON.parse(entry.message.metadataJson);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function summaryOf(entry: HistoryEntry): HistorySummary {
  const m = entry.message;
  let preview = '';
  if (m) {
    if (m.contentType === 'text') {
      try {
        preview = JSON.parse(m.bodyJson) as string;
      } catch {
        preview = m.bodyJson;
      }
    } else if (m.contentType === 'json') {
      preview = m.bodyJson;
    } else {
      preview = JSON.parse(m.bodyJson) as string;
    }
  }
  return {
    id: entry.id,
    received_at: entry.receivedAt,
    entrance: entry.entrance,
    status: entry.status,
    attempts: entry.attempts,
    size: entry.size,
    group_id: m?.groupId || null,
    preview: Array.from(preview).slice(0, PREVIEW_CHARS).join(''),
  };
}

export function detailOf(entry: HistoryEntry): HistoryDetail {
  const metadata = metadataOf(entry);
  const hook = metadata.webhook as Record<string, unknown> | undefined;
  return {
    ...summaryOf(entry),
    body: entry.message ? (JSON.parse(entry.message.bodyJson) as unknown) : null,
    content_type: entry.message?.contentType ?? 'json',
    metadata,
    webhook:
      hook && typeof hook === 'object'
        ? {
            method: String(hook.method ?? ''),
            query: String(hook.query ?? ''),
            headers: (hook.headers ?? {}) as Record<string, string>,
            verified: typeof hook.verified === 'boolean' ? hook.verified : null,
          }
        : null,
    timeline: entry.timeline,
  };
}

/**
 * The copy of a record that a replay stores: exact body, content type and metadata, in the
 * original's group.
 */
export function replayCopy(entry: HistoryEntry, dedupId: string | null = null): NewMessage {
  const m = entry.message!;
  const metadata = { ...metadataOf(entry), replay: { of: entry.id } };
  const metadataJson = JSON.stringify(metadata);
  return {
    id: crypto.randomUUID(),
    delayMs: 0,
    size: Buffer.byteLength(m.bodyJson) + Buffer.byteLength(metadataJson),
    contentType: m.contentType,
    dedupId,
    groupId: m.groupId || null,
    metadataJson,
    bodyJson: m.bodyJson,
  };
}

export function createHistory(deps: RelayDeps) {
  const { store } = deps;

  /** Records of the selection from the cursor on, at most limit, reading at most scanMax. */
  async function search(
    account: string,
    channel: string,
    selection: HistorySelection,
    cursor: HistoryCursor | null,
    limit: number,
    order: 'newest' | 'oldest',
    scanMax: number,
  ): Promise<{ entries: HistoryEntry[]; next: HistoryCursor | null }> {
    const plain = !selection.status && !selection.filter;
    return store.history.scan(account, channel, {
      sinceMs: selection.sinceMs,
      untilMs: selection.untilMs,
      cursor,
      order,
      max: plain ? limit : scanMax,
      want: limit,
      pick: pickOf(selection),
    });
  }

  return {
    search,

    /** GET .../history: summaries newest first, and where the next page starts. */
    async list(caller: Caller, channel: string, query: Record<string, unknown>) {
      const selection = parseSelection(query, deps.clock());
      const limit = parseLimit(query.limit);
      const cursor = parseCursor(query.cursor);
      const auth = await authorize(deps, caller, channel);
      const { entries, next } = await search(
        auth.accountId,
        channel,
        selection,
        cursor,
        limit,
        'newest',
        SCAN_PER_REQUEST,
      );
      return {
        items: entries.map(summaryOf),
        next_cursor: next ? encodeCursor(next) : null,
      };
    },

    /** GET .../history/{messageId}: the record with its body and timeline. */
    async show(caller: Caller, channel: string, messageId: string): Promise<HistoryDetail> {
      const id = messageIdParam(messageId);
      const auth = await authorize(deps, caller, channel);
      const entry = await store.history.get(auth.accountId, channel, id);
      if (!entry || !entry.message) throw notInHistory(channel, id);
      return detailOf(entry);
    },

    /** POST .../history/{messageId}/replay: a copy stored in `to` (default: the channel). */
    async replay(
      caller: Caller,
      channel: string,
      messageId: string,
      body: Record<string, unknown>,
    ): Promise<{ id: string }> {
      const id = messageIdParam(messageId);
      for (const key of Object.keys(body)) {
        if (key !== 'to') throw invalidField(`${key} is not a field of a replay; use to`);
      }
      const to = body.to;
      if (to !== undefined && (typeof to !== 'string' || !isValidId(to))) {
        throw invalidField(describeIdRule('to'));
      }
      const auth = await authorize(deps, { ...caller, count: false }, channel);
      const entry = await store.history.get(auth.accountId, channel, id);
      if (!entry || !entry.message) throw notInHistory(channel, id);
      const [newId] = await store.queue.send(caller, to ?? channel, [replayCopy(entry)], {
        entrance: 'replay',
      });
      deps.metrics.replayed.inc();
      return { id: newId };
    },
  };
}

export function compactOf(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}
