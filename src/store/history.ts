/**
 * Reading a channel's message history (layout in lua/lib/history.lua): newest first by
 * received_at, each record with its timeline and, for a message still in its channel, the
 * message's own record. Read-only: the scripts that store and end messages write it.
 */
import { channelKeys, HISTORY_INDEX_PATTERN, historyKeys } from './keys';
import { isCluster, type RedisClient } from './redis';
import type { StoreContext } from './context';
import type {
  DestinationOutcome,
  HistoryBatch,
  HistoryEntry,
  HistoryScan,
  HistoryStatus,
  HistoryStore,
  TimelineEntry,
} from './historyTypes';
import { compactUuid, parseRecord, uuidText, type RecordHeader } from './records';

const ENDED_STATUS: Record<string, HistoryStatus> = {
  a: 'acked',
  l: 'dead',
  e: 'expired',
  p: 'purged',
};

function parseTimeline(text: string): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const item of text.split(';')) {
    const [kind, atText, detail = ''] = item.split(',');
    const at = Number(atText);
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

function statusOf(timelineText: string, ended: boolean): HistoryStatus {
  const last = timelineText.slice(timelineText.lastIndexOf(';') + 1);
  if (ended) return ENDED_STATUS[last[0]] ?? 'acked';
  return last[0] === 'd' ? 'in_flight' : 'pending';
}

/** The bytes a full record counts (as lua/lib/common.lua's record_fields reads them). */
function sizeOf(record: string, header: RecordHeader): number {
  const sized = /^\d+\|[^|]*\|.{41}[0-9a-z]+[:;][^|]*\|\d*\|(\d+)\|/.exec(record);
  if (sized) return Number(sized[1]);
  return Buffer.byteLength(header.metadataJson) + Buffer.byteLength(header.bodyJson);
}

/**
 * A record as an entry. A search reads many records and shows few (a status or filter
 * picks them), so the parts only a shown entry needs (its id as text, timeline, size) are
 * worked out when first read.
 */
function entryOf(
  found: { id: string; at: number },
  record: string | null,
  timelineText: string,
  ended: boolean,
): HistoryEntry {
  const message = record ? parseRecord(record) : null;
  let timeline: TimelineEntry[] | null = null;
  const parsed = () => (timeline ??= parseTimeline(timelineText));
  const entrance = /^r,\d+,([^;]*)/.exec(timelineText)?.[1];
  return {
    get id() {
      return uuidText(found.id);
    },
    receivedAt: found.at,
    entrance: entrance || 'api',
    status: statusOf(timelineText, ended),
    get attempts() {
      return parsed().filter((t) => t.type === 'delivery').length;
    },
    get size() {
      return record && message ? sizeOf(record, message) : 0;
    },
    message,
    get timeline() {
      return parsed();
    },
  };
}

/** The most history indexes the gauge counts (a bound on a scrape's work). */
const HISTORY_SCAN_KEYS = 10_000;

export function createHistoryStore(ctx: StoreContext): HistoryStore {
  /** Reads the records of these compact ids (with their received_at) of one channel. */
  async function read(
    account: string,
    channel: string,
    found: { id: string; at: number }[],
    again = true,
  ): Promise<HistoryEntry[]> {
    if (found.length === 0) return [];
    const h = historyKeys(account, channel);
    const fields: string[] = [];
    for (const f of found) fields.push(f.id, `${f.id}:t`);
    const values = await ctx.command((redis) => redis.hmget(h.records, ...fields));
    const living: { index: number; seq: string }[] = [];
    for (let i = 0; i < found.length; i++) {
      const value = values[2 * i];
      if (value && value[0] === 'L') living.push({ index: i, seq: value.slice(1) });
    }
    const liveRecords =
      living.length === 0
        ? []
        : await ctx.command((redis) =>
            redis.hmget(channelKeys(account, channel).messages, ...living.map((l) => l.seq)),
          );
    const live = new Map<number, string | null>();
    living.forEach((l, j) => live.set(l.index, liveRecords[j]));
    const out: (HistoryEntry | number)[] = [];
    const ended: { id: string; at: number }[] = [];
    for (let i = 0; i < found.length; i++) {
      const value = values[2 * i];
      const timelineText = values[2 * i + 1];
      if (!value || !timelineText) continue; // swept between the two reads
      const isEnded = value[0] === 'E';
      let record: string | null = isEnded ? `0||${value.slice(1)}` : (live.get(i) ?? null);
      if (record && !isEnded && !record.includes(found[i].id)) record = null;
      if (!record && !isEnded && again) {
        // the message ended between the two reads: its kept record is read once more
        out.push(ended.length);
        ended.push(found[i]);
        continue;
      }
      out.push(entryOf(found[i], record, timelineText, isEnded));
    }
    if (ended.length === 0) return out as HistoryEntry[];
    const reread = await read(account, channel, ended, false);
    const byId = new Map(reread.map((e) => [e.id, e]));
    return out.flatMap((e) => {
      if (typeof e !== 'number') return [e];
      const again = byId.get(uuidText(ended[e].id));
      return again ? [again] : [];
    });
  }

  return {
    /**
     * Up to scan.max records in [sinceMs, untilMs] (inclusive) from the cursor on, in the
     * order asked; ties on received_at go by id.
     */
    async scan(account: string, channel: string, scan: HistoryScan): Promise<HistoryBatch> {
      const index = historyKeys(account, channel).index;
      const newest = scan.order === 'newest';
      const found: { id: string; at: number }[] = [];
      const edge = scan.cursor ? scan.cursor.at : newest ? scan.untilMs : scan.sinceMs;
      const far = newest ? scan.sinceMs : scan.untilMs;
      // one more than asked: whether the range goes on after this batch
      const wanted = scan.max + 1;
      let offset = 0;
      for (;;) {
        const want = wanted - found.length;
        const reply = newest
          ? await ctx.command((redis) =>
              redis.zrevrangebyscore(index, edge, far, 'WITHSCORES', 'LIMIT', offset, want),
            )
          : await ctx.command((redis) =>
              redis.zrangebyscore(index, edge, far, 'WITHSCORES', 'LIMIT', offset, want),
            );
        offset += reply.length / 2;
        for (let i = 0; i < reply.length; i += 2) {
          const id = reply[i];
          const at = Number(reply[i + 1]);
          // at the cursor's own received_at, the records up to and including it were given
          const given =
            scan.cursor !== null &&
            at === scan.cursor.at &&
            (newest ? id >= scan.cursor.id : id <= scan.cursor.id);
          if (!given) found.push({ id, at });
        }
        if (found.length >= wanted || reply.length < want * 2) break;
      }
      const more = found.length > scan.max;
      if (more) found.length = scan.max;
      const entries = await read(account, channel, found);
      const last = found[found.length - 1];
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
      const found: { id: string; at: number }[] = [];
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
