/**
 * Message history (issue 28) on one relayq process over one Redis: a channel with
 * history on fills with `records` acked messages (~200 B each, one in 1,000 of kind
 * "rare"); then
 *   - the first page of 50 (GET .../history?limit=50), p95 over sequential requests;
 *   - a filtered search ({"body":{"kind":"rare"}}) over the newest `scan` records, each
 *     search following next_cursor to its end (a request reads at most 20,000 records);
 *   - single sends (16 concurrent) to a channel with history on and to one without, in
 *     alternating rounds: the time ratio on / off, within the run;
 *   - Redis memory per ended record against memory per stored message (the same bodies
 *     in a channel without history).
 * Targets (issue 28, at 1,000,000 records and scan 100,000): first page ≤ 50 ms p95,
 * filtered search ≤ 500 ms p95, send with history ≤ 1.2x without, history ≤ 1.5x the
 * message's own memory. The default scale is modest (20,000 records) so that it runs in
 * about a minute; `--history-records N` and `--history-scan N` set it.
 * `npm run bench -- --only history` or, alone, `npm run bench:history [-- --quick]`.
 */
import Redis from 'ioredis';
import { historyKeys } from '../src/store/keys';
import { JsonClient } from './http';
import { ADMIN_TOKEN, runAlone, startRedis, startRelay, waitReady } from './procs';
import { median, percentile, pool, round } from './stats';
import { usedMemory } from './workloads';

export interface HistoryBenchResult {
  records: number;
  body_bytes: number;
  fill_s: number;
  first_page: { p50_ms: number; p95_ms: number; n: number };
  filtered: { scanned: number; matched: number; p50_ms: number; p95_ms: number; n: number };
  send_on_per_s: number;
  send_off_per_s: number;
  /** time of a send with history on / without (≤ 1.2 is the target) */
  send_ratio: number;
  history_bytes_per_record: number;
  message_bytes_per_message: number;
  /** history_bytes_per_record / message_bytes_per_message (≤ 1.5 is the target) */
  memory_ratio: number;
}

export interface HistoryBenchSettings {
  records: number;
  scan: number;
  pageSamples: number;
  searchSamples: number;
  phaseMs: number;
}

export function historySettings(quick: boolean, argv: string[]): HistoryBenchSettings {
  const value = (name: string): number | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const records = value('--history-records') ?? (quick ? 5_000 : 20_000);
  return {
    records,
    scan: Math.min(value('--history-scan') ?? 100_000, records),
    pageSamples: quick ? 20 : 60,
    searchSamples: quick ? 5 : 12,
    phaseMs: quick ? 1_000 : 2_000,
  };
}

const ACCOUNT = 'history';
const BATCH = 100;
const SEND_CONCURRENCY = 16;
const PAD = 'x'.repeat(150);
const RARE = { body: { kind: 'rare' } };

const messageBody = (n: number) => ({ n, kind: n % 1000 === 0 ? 'rare' : 'common', pad: PAD });

function p(samples: number[], q: number): number {
  return round(percentile(Float64Array.from(samples).sort(), q), 1);
}

/** Sends `count` messages to the channel in batches of 100, 8 batches in flight. */
async function fill(api: JsonClient, channel: string, count: number): Promise<void> {
  let next = 0;
  await pool(8, async () => {
    if (next >= count) return false;
    const from = next;
    next = Math.min(count, next + BATCH);
    const messages = [];
    for (let n = from; n < next; n++) messages.push({ body: messageBody(n) });
    await api.post(`/v1/relay/channels/${channel}/messages/batch`, JSON.stringify({ messages }));
    return true;
  });
}

/** Pulls and acks every message of the channel (their records end as acked). */
async function drain(api: JsonClient, channel: string): Promise<void> {
  let empty = 0;
  await pool(4, async () => {
    const pulled = await api.post<{ result: { messages: { lease_id: string }[] } }>(
      `/v1/relay/channels/${channel}/messages/pull`,
      JSON.stringify({ batch_size: BATCH }),
    );
    const leases = pulled.result.messages.map((m) => m.lease_id);
    if (leases.length === 0) return ++empty < 4;
    await api.post(
      `/v1/relay/channels/${channel}/messages/ack`,
      JSON.stringify({ lease_ids: leases }),
    );
    return true;
  });
}

/** Sends per second of single sends to the channel on 16 loops for ms. */
async function sendRate(api: JsonClient, channel: string, ms: number): Promise<number> {
  const body = JSON.stringify({ body: messageBody(1) });
  let done = 0;
  const started = Date.now();
  await pool(
    SEND_CONCURRENCY,
    async () => {
      await api.post(`/v1/relay/channels/${channel}/messages`, body);
      done++;
      return true;
    },
    started + ms,
  );
  return done / ((Date.now() - started) / 1000);
}

async function timed(one: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await one();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function runHistory(s: HistoryBenchSettings): Promise<HistoryBenchResult> {
  const redisProc = await startRedis('everysec');
  const relay = await startRelay(redisProc.port, { env: { LOG_LEVEL: 'warn' } });
  const redis = new Redis(redisProc.port, '127.0.0.1');
  const admin = new JsonClient(relay.port, `Bearer ${ADMIN_TOKEN}`, 2);
  let api: JsonClient | undefined;
  try {
    await waitReady(relay.port);
    await admin.post('/v1/admin/accounts', JSON.stringify({ id: ACCOUNT, plan: 'paid' }));
    const issued = await admin.post<{ result: { token: string } }>(
      `/v1/admin/accounts/${ACCOUNT}/tokens`,
      '{}',
    );
    api = new JsonClient(relay.port, `Bearer ${issued.result.token}`, 32);
    const on = JSON.stringify({ history_seconds: 86_400 });
    for (const channel of ['h', 'son'])
      await api.request('PUT', `/v1/relay/channels/${channel}`, on);
    for (const channel of ['plain', 'soff'])
      await api.request('PUT', `/v1/relay/channels/${channel}`, '{}');

    // the records: sent, delivered and acked (history only, no message left)
    const m0 = await usedMemory(redis);
    const t0 = Date.now();
    await fill(api, 'h', s.records);
    await drain(api, 'h');
    const fillS = (Date.now() - t0) / 1000;
    const m1 = await usedMemory(redis);
    // the same messages stored in a channel without history: a message's own memory
    await fill(api, 'plain', s.records);
    const m2 = await usedMemory(redis);
    await api.request('DELETE', '/v1/relay/channels/plain', undefined, 120_000);

    const pageTimes: number[] = [];
    const page = () => api!.request('GET', '/v1/relay/channels/h/history?limit=50');
    for (let i = 0; i < 5; i++) await page();
    for (let i = 0; i < s.pageSamples; i++) pageTimes.push(await timed(page));

    // the search's range: the newest `scan` records (by received_at)
    const index = historyKeys(ACCOUNT, 'h').index;
    const [, sinceScore] = await redis.zrevrange(index, s.scan - 1, s.scan - 1, 'WITHSCORES');
    const scanned = await redis.zcount(index, sinceScore, '+inf');
    const filter = encodeURIComponent(JSON.stringify(RARE));
    let matched = 0;
    const search = async () => {
      let cursor: string | null = null;
      matched = 0;
      do {
        const res: { result: { items: unknown[]; next_cursor: string | null } } =
          await api!.request(
            'GET',
            `/v1/relay/channels/h/history?limit=100&since=${sinceScore}&filter=${filter}` +
              (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
            undefined,
            120_000,
          );
        matched += res.result.items.length;
        cursor = res.result.next_cursor;
      } while (cursor);
    };
    await search();
    const searchTimes: number[] = [];
    for (let i = 0; i < s.searchSamples; i++) searchTimes.push(await timed(search));

    // sends with history on and off, in alternating rounds after a warm-up
    await sendRate(api, 'son', 300);
    await sendRate(api, 'soff', 300);
    const onRates: number[] = [];
    const offRates: number[] = [];
    for (let r = 0; r < 3; r++) {
      onRates.push(await sendRate(api, 'son', s.phaseMs));
      offRates.push(await sendRate(api, 'soff', s.phaseMs));
    }
    const onRate = median(onRates);
    const offRate = median(offRates);
    const historyBytes = (m1 - m0) / s.records;
    const messageBytes = (m2 - m1) / s.records;
    return {
      records: s.records,
      body_bytes: JSON.stringify(messageBody(1)).length,
      fill_s: round(fillS, 1),
      first_page: { p50_ms: p(pageTimes, 50), p95_ms: p(pageTimes, 95), n: pageTimes.length },
      filtered: {
        scanned,
        matched,
        p50_ms: p(searchTimes, 50),
        p95_ms: p(searchTimes, 95),
        n: searchTimes.length,
      },
      send_on_per_s: round(onRate, 0),
      send_off_per_s: round(offRate, 0),
      send_ratio: round(offRate / onRate, 2),
      history_bytes_per_record: round(historyBytes, 0),
      message_bytes_per_message: round(messageBytes, 0),
      memory_ratio: round(historyBytes / messageBytes, 2),
    };
  } finally {
    api?.close();
    admin.close();
    redis.disconnect();
    await relay.stop();
    await redisProc.stop();
  }
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  runAlone(() => runHistory(historySettings(argv.includes('--quick'), argv)));
}
