/**
 * Reading a channel's message history (layout in lua/lib/history.lua): newest first by
 * received_at, each record with its timeline and, for a message still in its channel, the
 * message's own record. Read-only: the scripts that store and end messages write it.
 */
import { channelKeys, HISTORY_INDEX_PATTERN, historyKeys, type HistoryKeys } from './keys';
import { isCluster, type RedisClient } from './redis';
import type { StoreContext } from './context';
import type {
  DestinationOutcome,
  HistoryBatch,
  HistoryEntry,
  HistoryPick,
  HistoryScan,
  HistoryStatus,
  HistoryStore,
  TimelineEntry,
} from './historyTypes';
import {
  compactUuid,
  parsePayload,
  PAYLOAD_OFFSET,
  recordFixedAt,
  uuidText,
  type RecordPayload,
} from './records';

const ENDED_STATUS: Record<string, HistoryStatus> = {
  a: 'acked',
  l: 'dead',
  e: 'expired',
  p: 'purged',
};
const LIVING: ReadonlySet<HistoryStatus | null> = new Set([null, 'pending', 'in_flight']);

/** Index entries read per command; the next batch is read while this one is matched. */
const CHUNK = 2000;

/** A timeline (entries '<kind><ms after received_at>[,detail]') of a message received at `at`. */
function parseTimeline(text: string, receivedAt: number): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const item of text.split(';')) {
    const kind = item[0];
    const comma = item.indexOf(',');
    const at = receivedAt + Number(comma < 0 ? item.slice(1) : item.slice(1, comma));
    const detail = comma < 0 ? '' : item.slice(comma + 1);
    switch (kind) {
      case 'r':
        out.push({ type: 'received', at, entrance: detail });
        break;
      case 'd':
        out.push({ type: 'delivery', at, attempt: Number(detail), via: 'pull' });
        break;
      case 'D': {
        // a push destination's attempt: attempt:status:duration_ms:outcome
        const [attempt, status, duration, outcome] = detail.split(':');
        out.push({
          type: 'delivery',
          at,
          attempt: Number(attempt),
          via: 'destination',
          status: status === '' ? null : Number(status),
          duration_ms: Number(duration),
          outcome: outcome as DestinationOutcome,
        });
        break;
      }
      case 'y':
        out.push(
          detail === 'lease'
            ? { type: 'retry', at, reason: 'lease_expired' }
            : { type: 'retry', at, delay_ms: Number(detail) },
        );
        break;
      case 'a':
        out.push({ type: 'ack', at });
        break;
      case 'l':
        out.push({ type: 'dead_letter', at, dead_letter_channel: detail === '' ? null : detail });
        break;
      case 'e':
        out.push({ type: 'expired', at });
        break;
      case 'p':
        out.push({ type: 'purged', at });
        break;
    }
  }
  return out;
}

/** The entrance of the first entry ('r0,<entrance>'). */
function entranceOf(timeline: string): string {
  const comma = timeline.indexOf(',');
  const end = timeline.indexOf(';');
  return (comma < 0 ? '' : timeline.slice(comma + 1, end < 0 ? undefined : end)) || 'api';
}

/** An ended record's status: its timeline's last entry (ended at: the '|' after it). */
function endedStatus(value: string, ended: number): HistoryStatus {
  const last = value.lastIndexOf(';', ended);
  return ENDED_STATUS[value[last < 0 ? 1 : last + 1]] ?? 'acked';
}

/** The bytes a record counts (as lua/lib/common.lua's record_fields reads them). */
function sizeOf(payload: RecordPayload): number {
  return (
    payload.sizeField ??
    Buffer.byteLength(payload.metadataJson) + Buffer.byteLength(payload.bodyJson)
  );
}

/**
 * A read sent before it is needed (the next chunk's): left unawaited when the page fills
 * first, so its failure must not be an unhandled rejection; an await still sees it.
 */
function early<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

interface Found {
  id: string;
  at: number;
}

/**
 * A record as an entry. A search shows few of the records it reads, so the parts only a
 * shown entry needs (its id as text, timeline, attempts) are worked out when first read.
 */
function entryOf(
  found: Found,
  message: RecordPayload | null,
  timelineText: string,
  status: HistoryStatus,
): HistoryEntry {
  let timeline: TimelineEntry[] | null = null;
  const parsed = () => (timeline ??= parseTimeline(timelineText, found.at));
  return {
    get id() {
      return uuidText(found.id);
    },
    receivedAt: found.at,
    entrance: entranceOf(timelineText),
    status,
    get attempts() {
      return parsed().filter((t) => t.type === 'delivery').length;
    },
    size: message ? sizeOf(message) : 0,
    message,
    get timeline() {
      return parsed();
    },
  };
}

/** A living message's record, or null when it is gone (or the seq holds another message). */
function livingPayload(record: string | null, id: string): RecordPayload | null {
  if (!record) return null;
  const fixed = recordFixedAt(record);
  if (!record.startsWith(id, fixed)) return null;
  return parsePayload(record, fixed + PAYLOAD_OFFSET);
}

/** The most history indexes the gauge counts (a bound on a scrape's work). */
const HISTORY_SCAN_KEYS = 10_000;

export function createHistoryStore(ctx: StoreContext): HistoryStore {
  /**
   * The entries of these records (the values of their ids in h, in order) that the pick
   * gives, in order. A living record that the pick may give is read from the messages hash,
   * with whether it is leased (in flight); one that ended between the two reads is read
   * again from its kept record.
   */
  async function entriesOf(
    account: string,
    channel: string,
    keys: HistoryKeys,
    found: Found[],
    values: (string | null)[],
    pick: HistoryPick | null,
    again = true,
  ): Promise<(HistoryEntry | null)[]> {
    const status = pick?.status ?? null;
    const match = pick?.match ?? null;
    const out: (HistoryEntry | null)[] = new Array<HistoryEntry | null>(found.length).fill(null);
    const living: number[] = [];
    // where each living value's '|' is (found once)
    const bars: number[] = [];
    for (let i = 0; i < found.length; i++) {
      const value = values[i];
      if (!value) continue; // swept since the index was read
      const bar = value.indexOf('|');
      if (value[0] === 'E') {
        const ended = endedStatus(value, bar);
        if (status !== null && ended !== status) continue;
        const message = parsePayload(value, bar + 1);
        if (match && !match(message)) continue;
        out[i] = entryOf(found[i], message, value.slice(1, bar), ended);
      } else if (LIVING.has(status)) {
        living.push(i);
        bars.push(bar);
      }
    }
    if (living.length === 0) return out;
    const ch = channelKeys(account, channel);
    const seqs = living.map((i, j) => values[i]!.slice(1, bars[j]));
    const [records, leased] = await Promise.all([
      ctx.command((redis) => redis.hmget(ch.messages, ...seqs)),
      ctx.command((redis) => redis.zmscore(ch.leases, ...seqs)),
    ]);
    const gone: number[] = [];
    living.forEach((i, j) => {
      const message = livingPayload(records[j], found[i].id);
      if (!message) {
        if (again) gone.push(i);
        return;
      }
      const state: HistoryStatus = leased[j] === null ? 'pending' : 'in_flight';
      if (status !== null && state !== status) return;
      if (match && !match(message)) return;
      out[i] = entryOf(found[i], message, values[i]!.slice(bars[j] + 1), state);
    });
    if (gone.length > 0) {
      // ended between the two reads: read once more, now from the kept record
      const ids = gone.map((i) => found[i].id);
      const kept = await ctx.command((redis) => redis.hmget(keys.records, ...ids));
      const reread = await entriesOf(
        account,
        channel,
        keys,
        gone.map((i) => found[i]),
        kept.map((v) => (v && v[0] === 'E' ? v : null)),
        pick,
        false,
      );
      gone.forEach((i, j) => (out[i] = reread[j]));
    }
    return out;
  }

  /** The entries of these records (with their received_at) of one channel, in order. */
  async function read(account: string, channel: string, found: Found[]): Promise<HistoryEntry[]> {
    if (found.length === 0) return [];
    const keys = historyKeys(account, channel);
    const values = await ctx.command((redis) =>
      redis.hmget(keys.records, ...found.map((f) => f.id)),
    );
    const entries = await entriesOf(account, channel, keys, found, values, null);
    return entries.filter((e): e is HistoryEntry => e !== null);
  }

  return {
    /**
     * Up to scan.want entries the pick gives, reading at most scan.max records in [sinceMs,
     * untilMs] (inclusive) from the cursor on, in the order asked; ties on received_at go by
     * id. The index is read in chunks, each with its records in one round trip, the next
     * chunk read while this one is matched.
     */
    async scan(account: string, channel: string, scan: HistoryScan): Promise<HistoryBatch> {
      const keys = historyKeys(account, channel);
      const newest = scan.order === 'newest';
      const want = scan.want ?? scan.max;
      const pick = scan.pick ?? null;
      const far = newest ? scan.sinceMs : scan.untilMs;
      const cursor = scan.cursor;
      // where the index is read on: a score, and how many records at it were passed
      let edge = cursor ? cursor.at : newest ? scan.untilMs : scan.sinceMs;
      let skip = 0;
      let budget = scan.max;
      let rangeDone = false;
      /** records asked of the last chunk read (the chunk taken next) */
      let requested = 0;

      /** The next chunk of the index (with one more than the budget: whether it goes on). */
      const nextChunk = (): Promise<string[]> | null => {
        if (rangeDone || budget <= 0) return null;
        const count = budget <= CHUNK ? budget + 1 : CHUNK;
        requested = count;
        const from = edge;
        const offset = skip;
        return early(
          ctx.command((redis) =>
            newest
              ? redis.zrevrangebyscore(keys.index, from, far, 'WITHSCORES', 'LIMIT', offset, count)
              : redis.zrangebyscore(keys.index, from, far, 'WITHSCORES', 'LIMIT', offset, count),
          ),
        );
      };
      /** The records of a chunk's reply (at most the budget); moves the edge past them. */
      const take = (reply: string[]): { found: Found[]; more: boolean } => {
        const found: Found[] = [];
        const count = reply.length / 2;
        if (count < requested) rangeDone = true;
        let more = false;
        for (let i = 0; i < reply.length; i += 2) {
          const id = reply[i];
          const at = Number(reply[i + 1]);
          // at the cursor's own received_at, the records up to and including it were given
          const given =
            cursor !== null && at === cursor.at && (newest ? id >= cursor.id : id <= cursor.id);
          if (!given) {
            if (found.length === budget) {
              more = true;
              break;
            }
            found.push({ id, at });
          }
          if (at === edge) skip++;
          else {
            edge = at;
            skip = 1;
          }
        }
        budget -= found.length;
        if (more) rangeDone = true;
        return { found, more };
      };
      const valuesOf = (found: Found[]) =>
        found.length === 0
          ? Promise.resolve([] as (string | null)[])
          : early(ctx.command((redis) => redis.hmget(keys.records, ...found.map((f) => f.id))));

      const entries: HistoryEntry[] = [];
      let last: Found | null = null;
      let more = false;
      let ids = nextChunk();
      let chunk = ids ? take(await ids) : { found: [], more: false };
      let values = valuesOf(chunk.found);
      ids = nextChunk();
      while (chunk.found.length > 0 || ids) {
        const got = await values;
        const current = chunk;
        // the next chunk's records are read while this one's are matched
        if (ids) {
          chunk = take(await ids);
          values = valuesOf(chunk.found);
          ids = nextChunk();
        } else {
          chunk = { found: [], more: false };
        }
        more = current.more || chunk.found.length > 0 || ids !== null;
        const picked = await entriesOf(account, channel, keys, current.found, got, pick);
        for (let i = 0; i < picked.length; i++) {
          last = current.found[i];
          const entry = picked[i];
          if (!entry) continue;
          entries.push(entry);
          if (entries.length === want) {
            // a later record remains when this one is not the chunk's last or the range goes on
            const after = i < picked.length - 1 || more;
            return { entries, next: after ? { at: last.at, id: last.id } : null };
          }
        }
        if (current.more) break;
      }
      return { entries, next: more && last ? { at: last.at, id: last.id } : null };
    },

    /** One record by message id (the usual 36-character UUID), or null. */
    async get(account: string, channel: string, messageId: string): Promise<HistoryEntry | null> {
      const id = compactUuid(messageId);
      const index = historyKeys(account, channel).index;
      const at = await ctx.command((redis) => redis.zscore(index, id));
      if (at === null) return null;
      const [entry] = await read(account, channel, [{ id, at: Number(at) }]);
      return entry ?? null;
    },

    /** The records of these compact ids that are still kept, keyed by compact id. */
    async getMany(
      account: string,
      channel: string,
      ids: string[],
    ): Promise<Map<string, HistoryEntry>> {
      const out = new Map<string, HistoryEntry>();
      if (ids.length === 0) return out;
      const index = historyKeys(account, channel).index;
      const scores = await ctx.command((redis) => redis.zmscore(index, ...ids));
      const found: Found[] = [];
      ids.forEach((id, i) => {
        if (scores[i] !== null) found.push({ id, at: Number(scores[i]) });
      });
      for (const entry of await read(account, channel, found)) {
        out.set(compactUuid(entry.id), entry);
      }
      return out;
    },

    /**
     * Records in every channel's history, service-wide (a SCAN of each master, for the
     * gauge; at most HISTORY_SCAN_KEYS history indexes are counted).
     */
    async countAll(): Promise<number> {
      return ctx.command((redis) => countIndexes(redis));
    },

    /** How many records the channel's history holds. */
    async count(account: string, channel: string): Promise<number> {
      const index = historyKeys(account, channel).index;
      return ctx.command((redis) => redis.zcard(index));
    },
  };
}

/** Records in every history index of the service (at most HISTORY_SCAN_KEYS indexes). */
async function countIndexes(redis: RedisClient): Promise<number> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  let total = 0;
  let seen = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', HISTORY_INDEX_PATTERN, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        if (++seen > HISTORY_SCAN_KEYS) return total;
        total += await node.zcard(key);
      }
    } while (cursor !== '0');
  }
  return total;
}
