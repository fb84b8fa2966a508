/**
 * Message history (issue 28) on its own relayq and Redis. A channel with history on is
 * filled with `records` ended records (~200 B bodies, one in 1,000 of kind "rare"): sent in
 * batches of 100 (8 in flight), the channel purged every 5,000 (each message's record kept,
 * marked purged); then
 *   - the first page of 50 (GET .../history?limit=50), p95 over sequential requests;
 *   - a filtered search ({"body":{"kind":"rare"}}) over the newest `scan` records, each
 *     search following next_cursor to its end (a request reads at most 20,000 records);
 *   - single sends (16 concurrent) to a channel with history on and to one without, in
 *     alternating rounds: the time ratio on / off, within the run;
 *   - a bulk replay of the newest `replay` records at `rate` per second on two pods, the one
 *     running it SIGKILLed at 40 % and another started (bench/historyReplay.ts): its time
 *     and whether its copies are exactly the matched set;
 *   - Redis memory per ended record (sent, pulled, acked) against memory per stored message
 *     (the same messages in a channel without history), at each body size of `memoryBodies`.
 * Defaults are the issue's: 1,000,000 records, scan 100,000, replay 100,000 at 5,000/s;
 * targets: first page ≤ 50 ms p95, filtered search ≤ 500 ms p95, replay within 10 % of 20 s
 * with no loss and no duplicate, send with history ≤ 1.2x without, history ≤ 1.5x the
 * message's own memory. `--history-records N`, `--history-scan N`, `--history-replay N`,
 * `--history-rate N`, `--history-memory N` (records per memory measurement) scale it down;
 * `--quick` is 20,000 records. `npm run bench -- --only history` or, alone,
 * `npm run bench:history [-- --quick] [-- --profile DIR]`.
 */
import Redis from 'ioredis';
import { historyKeys } from '../src/store/keys';
import { JsonClient } from './http';
import { runReplay, type ReplayBenchResult } from './historyReplay';
import { ADMIN_TOKEN, runAlone, sleep, startRedis, startRelay, waitReady } from './procs';
import { median, percentile, pool, round } from './stats';
import { usedMemory } from './workloads';

export interface MemoryResult {
  body_bytes: number;
  history_bytes_per_record: number;
  message_bytes_per_message: number;
  /** history_bytes_per_record / message_bytes_per_message (≤ 1.5 is the target) */
  ratio: number;
}

export interface HistoryBenchResult {
  records: number;
  body_bytes: number;
  /** seconds to send and purge the records */
  fill_s: number;
  first_page: { p50_ms: number; p95_ms: number; n: number };
  filtered: { scanned: number; matched: number; p50_ms: number; p95_ms: number; n: number };
  send_on_per_s: number;
  send_off_per_s: number;
  /** time of a send with history on / without (≤ 1.2 is the target) */
  send_ratio: number;
  replay: ReplayBenchResult | null;
  memory: MemoryResult[];
}

export interface HistoryBenchSettings {
  records: number;
  scan: number;
  replay: number;
  rate: number;
  memoryRecords: number;
  memoryBodies: number[];
  pageSamples: number;
  searchSamples: number;
  phaseMs: number;
  /** where relayq writes a CPU profile (bench/profileTop.ts reads it), or null */
  profileDir: string | null;
}

export function historySettings(quick: boolean, argv: string[]): HistoryBenchSettings {
  const value = (name: string): number | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const records = value('--history-records') ?? (quick ? 20_000 : 1_000_000);
  return {
    records,
    scan: Math.min(value('--history-scan') ?? 100_000, records),
    replay: Math.min(value('--history-replay') ?? (quick ? 10_000 : 100_000), records),
    rate: value('--history-rate') ?? 5_000,
    memoryRecords: value('--history-memory') ?? (quick ? 5_000 : 20_000),
    memoryBodies: [1024, 200],
    pageSamples: quick ? 20 : 60,
    searchSamples: quick ? 5 : 12,
    phaseMs: quick ? 1_000 : 2_000,
    profileDir: argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : null,
  };
}

const ACCOUNT = 'history';
const BATCH = 100;
/** Messages sent between two purges of the filled channel (one purge call ends them all). */
const PURGE_EVERY = 5_000;
const SEND_CONCURRENCY = 16;
const PAD = 'x'.repeat(150);
const RARE = { body: { kind: 'rare' } };

const messageBody = (n: number) => ({ n, kind: n % 1000 === 0 ? 'rare' : 'common', pad: PAD });

/** A body of about `bytes` bytes as JSON. */
const sizedBody = (n: number, bytes: number) => {
  const base = JSON.stringify({ n, kind: 'common', pad: '' }).length;
  return { n, kind: 'common', pad: 'x'.repeat(Math.max(0, bytes - base)) };
};

function p(samples: number[], q: number): number {
  return round(percentile(Float64Array.from(samples).sort(), q), 1);
}

const log = (line: string) => console.error(`[history] ${line}`);

/**
 * A request that a busy store may refuse with a 503 (nothing done, "may be retried": on this
 * shared machine a purge or an AOF fsync can hold Redis past the command timeout), tried
 * again up to 5 times.
 */
async function retried<T>(request: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await request();
    } catch (err) {
      if (tries === 5 || !/HTTP 503/.test(String(err))) throw err;
      log(`503, again (${tries})`);
      await sleep(500 * tries);
    }
  }
}

/** Sends messages from..to-1 (body(n)) to the channel in batches of 100, 8 batches in flight. */
async function fill(
  api: JsonClient,
  channel: string,
  from: number,
  to: number,
  body: (n: number) => unknown = messageBody,
): Promise<void> {
  let next = from;
  await pool(8, async () => {
    if (next >= to) return false;
    const first = next;
    next = Math.min(to, next + BATCH);
    const messages = [];
    for (let n = first; n < next; n++) messages.push({ body: body(n) });
    const batch = JSON.stringify({ messages });
    await retried(() => api.post(`/v1/relay/channels/${channel}/messages/batch`, batch));
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

/**
 * Redis memory of `count` ended records (sent, pulled, acked) with bodies of about `bytes`,
 * against the same messages stored in a channel without history.
 */
async function memoryAt(
  api: JsonClient,
  redis: Redis,
  count: number,
  bytes: number,
): Promise<MemoryResult> {
  const on = `mem${bytes}`;
  const off = `plain${bytes}`;
  await api.request('PUT', `/v1/relay/channels/${on}`, JSON.stringify({ history_seconds: 86_400 }));
  await api.request('PUT', `/v1/relay/channels/${off}`, '{}');
  const body = (n: number) => sizedBody(n, bytes);
  const m0 = await usedMemory(redis);
  await fill(api, on, 0, count, body);
  await drain(api, on);
  const m1 = await usedMemory(redis);
  await fill(api, off, 0, count, body);
  const m2 = await usedMemory(redis);
  // (the channels stay: a delete frees their memory lazily, in the next measurement)
  const history = (m1 - m0) / count;
  const message = (m2 - m1) / count;
  return {
    body_bytes: JSON.stringify(body(1)).length,
    history_bytes_per_record: round(history, 0),
    message_bytes_per_message: round(message, 0),
    ratio: round(history / message, 2),
  };
}

export async function runHistory(s: HistoryBenchSettings): Promise<HistoryBenchResult> {
  const redisProc = await startRedis('everysec');
  const relay = await startRelay(redisProc.port, {
    env: { LOG_LEVEL: 'warn' },
    cpuProfDir: s.profileDir ?? undefined,
  });
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
    const auth = `Bearer ${issued.result.token}`;
    api = new JsonClient(relay.port, auth, 32);
    const on = JSON.stringify({ history_seconds: 86_400 });
    for (const channel of ['h', 'son'])
      await api.request('PUT', `/v1/relay/channels/${channel}`, on);
    for (const channel of ['soff', 'copies'])
      await api.request('PUT', `/v1/relay/channels/${channel}`, '{}');

    const memory: MemoryResult[] = [];
    for (const bytes of s.memoryBodies) {
      memory.push(await memoryAt(api, redis, s.memoryRecords, bytes));
      log(`memory at ${bytes} B: ${JSON.stringify(memory[memory.length - 1])}`);
    }

    // the records: sent, then purged (history only, no message left)
    const t0 = Date.now();
    for (let from = 0; from < s.records; from += PURGE_EVERY) {
      await fill(api, 'h', from, Math.min(s.records, from + PURGE_EVERY));
      await retried(() => api!.post('/v1/relay/channels/h/messages/purge', '{}', 120_000));
    }
    const fillS = (Date.now() - t0) / 1000;
    log(`${s.records} records in ${round(fillS, 1)} s`);

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
    log(`search: p95 ${p(searchTimes, 95)} ms over ${scanned}`);

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

    const replay =
      s.replay > 0
        ? await runReplay(redisProc.port, redis, auth, ACCOUNT, 'h', s.replay, s.rate, log)
        : null;
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
      replay,
      memory,
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
