/**
 * Push destinations (issue 25) on one relayq process over one Redis, to a node:http receiver
 * on loopback (RELAY_DESTINATIONS_ALLOW_PRIVATE=true):
 * - first attempt: sends offered at `rate` msgs/s, one message per send; the time from each
 *   send's answer to its first attempt reaching the receiver (target p99 ≤ 100 ms);
 * - throughput: `n` messages pushed with parallelism `parallelism` against the same `n`
 *   pulled and acked over HTTP (`pullLoops` consumers, batches of `pullBatch`) in the same
 *   run (target: push ≥ 0.5 of pull+ack);
 * - failures: `failures` messages to a receiver that answers 500 to every third request:
 *   all delivered, none lost (retried on a short schedule), the channel left empty;
 * - rate and kill: across 3 pods (bench/pushPods.ts).
 * `npm run bench -- --only push` or, alone, `npm run bench:push [-- --quick] [-- --rate N]
 * [-- --n N] [-- --parallelism N] [-- --failures N] [-- --seconds S] [-- --rate-seconds S]
 * [-- --kill-messages N] [-- --phases first,throughput,failures,rate,kill]
 * [-- --profile DIR]` (`--profile`: the relayq process of the first three phases writes a
 * CPU profile there; read it with bench/profileTop.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { JsonClient } from './http';
import { ADMIN_TOKEN, startRedis, startRelay, stopAll, waitReady } from './procs';
import {
  PODS_DEFAULTS,
  runKill,
  runRate,
  type KillResult,
  type PodsSettings,
  type RateResult,
} from './pushPods';
import { now, startReceiver } from './pushReceiver';
import { pool, round, summarize } from './stats';

const PHASES = ['first', 'throughput', 'failures', 'rate', 'kill'] as const;
type Phase = (typeof PHASES)[number];

export interface PushSettings extends PodsSettings {
  /** offered sends per second in the first-attempt phase */
  rate: number;
  /** how long that phase offers them (s), after warmupSeconds not measured */
  seconds: number;
  warmupSeconds: number;
  /** messages of the throughput phase (each way) */
  n: number;
  parallelism: number;
  pullLoops: number;
  pullBatch: number;
  /** messages of the failure phase */
  failures: number;
  phases: readonly Phase[];
  /** a folder for the relayq process's CPU profile, or null */
  profileDir: string | null;
}

export const PUSH_DEFAULTS: PushSettings = {
  ...PODS_DEFAULTS,
  rate: 1000,
  seconds: 10,
  warmupSeconds: 5,
  n: 10_000,
  parallelism: 50,
  pullLoops: 4,
  pullBatch: 10,
  failures: 10_000,
  phases: PHASES,
  profileDir: null,
};
export const PUSH_QUICK: PushSettings = {
  ...PUSH_DEFAULTS,
  seconds: 3,
  warmupSeconds: 1,
  n: 2_000,
  failures: 2_000,
  rateSeconds: 10,
  killMessages: 1_500,
};

export interface PushResult {
  first_attempt?: {
    offered_per_s: number;
    sent: number;
    p50_ms: number;
    p99_ms: number;
    max_ms: number;
    /** sends whose first attempt never came within the wait */
    missing: number;
    /** sends whose first attempt came more than 100 ms after their answer, and when (s) */
    over_100_ms: number;
    over_100_ms_from_s: number | null;
    over_100_ms_to_s: number | null;
  };
  throughput?: {
    messages: number;
    parallelism: number;
    push_per_s: number;
    pull_ack_per_s: number;
    /** push / pull+ack, within the run */
    ratio: number;
    /** what each message cost, pushed and pulled + acked */
    push_cost: Cost;
    pull_ack_cost: Cost;
  };
  failures?: {
    messages: number;
    delivered: number;
    lost: number;
    /** requests the receiver answered (500s included) */
    requests: number;
    /** messages left in the channel (queued, delayed, in flight, dead) */
    left: number;
  };
  rate?: RateResult;
  kill?: KillResult;
}

/** CPU time (ms) a process has used so far (utime + stime, /proc/<pid>/stat), 0 when unknown. */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of stat (utime, stime), in clock ticks (100 per second on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Script calls Redis has run so far (INFO commandstats: EVALSHA and EVAL). */
async function redisCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

interface Cost {
  /** relayq's and redis-server's CPU time per message (ms), and script calls per message */
  relay_cpu_ms: number;
  redis_cpu_ms: number;
  script_calls: number;
}

/** What a phase cost per message: measure(before) ... measure(after). */
async function costMeter(relayPid?: number, redisPid?: number, redis?: Redis) {
  const read = async () => ({
    relay: cpuMs(relayPid),
    redis: cpuMs(redisPid),
    calls: redis ? await redisCalls(redis) : 0,
  });
  const start = await read();
  return async (messages: number): Promise<Cost> => {
    const end = await read();
    return {
      relay_cpu_ms: round((end.relay - start.relay) / messages, 3),
      redis_cpu_ms: round((end.redis - start.redis) / messages, 3),
      script_calls: round((end.calls - start.calls) / messages, 2),
    };
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(20);
  }
  return check();
}

export async function runPush(s: PushSettings): Promise<PushResult> {
  const out: PushResult = {};
  const want = (phase: Phase) => s.phases.includes(phase);
  if (want('first') || want('throughput') || want('failures')) Object.assign(out, await onePod(s));
  if (want('rate')) out.rate = await runRate(s);
  if (want('kill')) out.kill = await runKill(s);
  return out;
}

/** The first three workloads, on one relayq process. */
async function onePod(s: PushSettings): Promise<PushResult> {
  const want = (phase: Phase) => s.phases.includes(phase);
  const out: PushResult = {};
  const redis = await startRedis('everysec');
  const relay = await startRelay(redis.port, {
    env: { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' },
    cpuProfDir: s.profileDir ?? undefined,
  });
  const admin = new JsonClient(relay.port, `Bearer ${ADMIN_TOKEN}`, 2);
  const receiver = await startReceiver();
  let api: JsonClient | undefined;
  let redisClient: Redis | undefined;
  try {
    await waitReady(relay.port);
    await admin.post('/v1/admin/accounts', JSON.stringify({ id: 'push', plan: 'paid' }));
    const issued = await admin.post<{ result: { token: string } }>(
      '/v1/admin/accounts/push/tokens',
      '{}',
    );
    api = new JsonClient(relay.port, `Bearer ${issued.result.token}`, 64);
    redisClient = new Redis(redis.port, '127.0.0.1');
    const meter = () => costMeter(relay.child.pid, redis.child.pid, redisClient);
    const client = api;
    const destination = async (channel: string, body: object) =>
      (
        await client.post<{ result: { id: string } }>(
          `/v1/relay/channels/${channel}/destinations`,
          JSON.stringify({ url: `${receiver.url}/${channel}`, ...body }),
        )
      ).result.id;
    const fill = async (channel: string, count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 100) {
        const messages = Array.from({ length: Math.min(100, count - i) }, (_, j) => ({
          body: { n: i + j, pad: 'x'.repeat(150) },
        }));
        const r = await client.post<{ result: { ids: string[] } }>(
          `/v1/relay/channels/${channel}/messages/batch`,
          JSON.stringify({ messages }),
        );
        ids.push(...r.result.ids);
      }
      return ids;
    };
    const channelLeft = async (channel: string) => {
      const c = (
        await client.request<{
          result: { queued: number; delayed: number; in_flight: number; dead_count: number };
        }>('GET', `/v1/relay/channels/${channel}`)
      ).result;
      return c.queued + c.delayed + c.in_flight + c.dead_count;
    };

    if (want('first')) {
      // 1. first attempt at the offered rate
      await destination('lat', { parallelism: s.parallelism, signing: 'standard-webhooks' });
      const answered = new Map<string, number>();
      // the first warmupSeconds at the same rate are not measured (connections, JIT)
      const warmup = Math.round(s.rate * s.warmupSeconds);
      const total = warmup + Math.round(s.rate * s.seconds);
      const begun = now();
      const started = begun + (warmup * 1000) / s.rate;
      let next = 0;
      await pool(64, async () => {
        const i = next++;
        if (i >= total) return false;
        const due = begun + (i * 1000) / s.rate;
        const wait = due - now();
        if (wait > 0) await sleep(wait);
        const r = await client.post<{ result: { id: string } }>(
          '/v1/relay/channels/lat/messages',
          `{"body":{"i":${i}}}`,
        );
        if (i >= warmup) answered.set(r.result.id, now());
        return true;
      });
      await until(() => [...answered.keys()].every((id) => receiver.first.has(id)), 30_000);
      const latencies: number[] = [];
      let missing = 0;
      // when the sends whose first attempt came over 100 ms later were answered (s from the start)
      const late: number[] = [];
      for (const [id, at] of answered) {
        const first = receiver.first.get(id);
        if (first === undefined) missing++;
        // an attempt may reach the receiver before the send's answer reaches the sender: 0
        else latencies.push(Math.max(0, first - at));
        if (first !== undefined && first - at > 100) late.push((at - started) / 1000);
      }
      const lat = summarize(latencies);
      out.first_attempt = {
        offered_per_s: s.rate,
        sent: answered.size,
        p50_ms: round(lat.p50, 1),
        p99_ms: round(lat.p99, 1),
        max_ms: round(lat.max, 1),
        missing,
        over_100_ms: late.length,
        over_100_ms_from_s: late.length ? round(Math.min(...late), 2) : null,
        over_100_ms_to_s: late.length ? round(Math.max(...late), 2) : null,
      };
    }

    if (want('throughput')) {
      // 2. throughput: the same number of messages pushed, and pulled and acked
      const pushId = await destination('tp', { parallelism: s.parallelism, paused: true });
      const pushIds = await fill('tp', s.n);
      const delivered = () => pushIds.every((id) => receiver.delivered.has(id));
      const pushStart = now();
      const pushMeter = await meter();
      await client.request(
        'PATCH',
        `/v1/relay/channels/tp/destinations/${pushId}`,
        '{"paused":false}',
      );
      if (!(await until(delivered, 300_000))) throw new Error('push throughput: not all delivered');
      const pushPerS = s.n / ((now() - pushStart) / 1000);
      const pushCost = await pushMeter(s.n);

      await fill('pa', s.n);
      let acked = 0;
      const pullStart = now();
      const pullMeter = await meter();
      await pool(
        s.pullLoops,
        async () => {
          const r = await client.post<{ result: { messages: { lease_id: string }[] } }>(
            '/v1/relay/channels/pa/messages/pull',
            JSON.stringify({ batch_size: s.pullBatch }),
          );
          const leases = r.result.messages.map((m) => m.lease_id);
          if (leases.length === 0) return acked < s.n;
          await client.post(
            '/v1/relay/channels/pa/messages/ack',
            JSON.stringify({ lease_ids: leases }),
          );
          acked += leases.length;
          return acked < s.n;
        },
        Date.now() + 300_000,
      );
      const pullPerS = acked / ((now() - pullStart) / 1000);
      const pullCost = await pullMeter(acked);
      out.throughput = {
        messages: s.n,
        parallelism: s.parallelism,
        push_per_s: round(pushPerS, 0),
        pull_ack_per_s: round(pullPerS, 0),
        ratio: round(pushPerS / pullPerS, 2),
        push_cost: pushCost,
        pull_ack_cost: pullCost,
      };
    }

    if (want('failures')) {
      // 3. a receiver that answers 500 to every third request
      receiver.fail = (n) => n % 3 === 0;
      const base = receiver.requests;
      await destination('fail', {
        parallelism: 10,
        retry: { schedule_seconds: [0, 1], max_attempts: 20 },
      });
      const failIds = await fill('fail', s.failures);
      await until(() => failIds.every((id) => receiver.delivered.has(id)), 300_000);
      await until(async () => (await channelLeft('fail')) === 0, 10_000);
      const got = failIds.filter((id) => receiver.delivered.has(id)).length;
      out.failures = {
        messages: s.failures,
        delivered: got,
        lost: s.failures - got,
        requests: receiver.requests - base,
        left: await channelLeft('fail'),
      };
    }
    return out;
  } finally {
    api?.close();
    redisClient?.disconnect();
    admin.close();
    await receiver.close();
    await relay.stop();
    await redis.stop();
  }
}

/** The settings from the command line (`--quick` for the small defaults). */
export function pushSettings(argv: string[]): PushSettings {
  const s = { ...(argv.includes('--quick') ? PUSH_QUICK : PUSH_DEFAULTS) };
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const flags: [
    string,
    keyof PodsSettings | 'rate' | 'seconds' | 'warmupSeconds' | 'n' | 'parallelism' | 'failures',
  ][] = [
    ['--rate', 'rate'],
    ['--seconds', 'seconds'],
    ['--n', 'n'],
    ['--parallelism', 'parallelism'],
    ['--failures', 'failures'],
    ['--rate-seconds', 'rateSeconds'],
    ['--kill-messages', 'killMessages'],
  ];
  for (const [flag, key] of flags) {
    const v = value(flag);
    if (v !== undefined) s[key] = Number(v);
  }
  const phases = value('--phases');
  if (phases !== undefined) {
    const list = phases.split(',');
    const bad = list.find((p) => !(PHASES as readonly string[]).includes(p));
    if (bad) throw new Error(`--phases: unknown phase ${bad} (one of ${PHASES.join(', ')})`);
    s.phases = list as Phase[];
  }
  const profile = value('--profile');
  if (profile !== undefined) s.profileDir = path.resolve(profile);
  return s;
}

if (require.main === module) {
  runPush(pushSettings(process.argv))
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => stopAll());
}
