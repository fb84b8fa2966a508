/**
 * The bulk replay workload of the history bench (bench/history.ts): a job over the newest
 * `count` records of a channel at `rate` per second, on two relayq pods over one Redis; the
 * pod that runs the job is SIGKILLed part way and a new one started. Then the copies (in
 * their own channel) are read from Redis and compared with the matched set: every original
 * copied once, none lost, none twice.
 */
import Redis from 'ioredis';
import { channelKeys, historyKeys } from '../src/store/keys';
import { parseRecord, uuidText } from '../src/store/records';
import { JsonClient } from './http';
import { freePort, sleep, startRelay, waitReady, type Proc } from './procs';
import { round } from './stats';

export interface ReplayBenchResult {
  matched: number;
  rate_per_second: number;
  /** the job's own started_at to finished_at; the target: within 10 % of matched / rate */
  job_s: number;
  expected_s: number;
  pod_killed_at_replayed: number;
  copies: number;
  lost: number;
  duplicates: number;
  /** copies of records outside the matched set */
  strays: number;
}

interface Pod {
  proc: Proc;
  metricsPort: number;
}

async function startPod(redisPort: number): Promise<Pod> {
  const metricsPort = await freePort();
  const proc = await startRelay(redisPort, {
    env: { LOG_LEVEL: 'warn', METRICS_PORT: String(metricsPort) },
  });
  await waitReady(proc.port);
  return { proc, metricsPort };
}

/** The copies this pod stored (relayq_replayed_messages_total). */
async function replayedBy(pod: Pod): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${pod.metricsPort}/metrics`).catch(() => null);
  if (!res) return 0;
  const m = /^relayq_replayed_messages_total (\d+)/m.exec(await res.text());
  return m ? Number(m[1]) : 0;
}

/** The original of every copy in the channel (metadata.replay.of), read from its messages hash. */
async function copiesOf(redis: Redis, account: string, channel: string): Promise<string[]> {
  const key = channelKeys(account, channel).messages;
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(key, cursor, 'COUNT', 2000);
    cursor = next;
    for (let i = 0; i < flat.length; i += 2) {
      if (!/^[0-9a-f]{12}$/.test(flat[i])) continue; // bookkeeping fields
      const meta = JSON.parse(parseRecord(flat[i + 1]).metadataJson) as { replay: { of: string } };
      out.push(meta.replay.of);
    }
  } while (cursor !== '0');
  return out;
}

export async function runReplay(
  redisPort: number,
  redis: Redis,
  auth: string,
  account: string,
  channel: string,
  count: number,
  rate: number,
  log: (line: string) => void,
): Promise<ReplayBenchResult> {
  const pods = [await startPod(redisPort), await startPod(redisPort)];
  const api = new JsonClient(pods[0].proc.port, auth, 4);
  try {
    const index = historyKeys(account, channel).index;
    const newest = await redis.zrevrange(index, 0, count - 1, 'WITHSCORES');
    const since = Number(newest[newest.length - 1]);
    const until = Number(newest[1]);
    // the matched set: every record in [since, until] (more than count when a millisecond
    // at the edge holds several)
    const matched = new Set(
      (await redis.zrangebyscore(index, since, until)).map((id) => uuidText(id)),
    );
    const path = `/v1/relay/channels/${channel}/replays`;
    const made = await api.post<{ result: { id: string; matched: number } }>(
      path,
      JSON.stringify({ since, until, to: 'copies', rate_per_second: rate }),
      120_000,
    );
    const jobId = made.result.id;
    log(`replay: job of ${made.result.matched} (set ${matched.size}) at ${rate}/s`);
    type Job = { state: string; replayed: number; started_at: number; finished_at: number };
    const job = async () => (await api.request<{ result: Job }>('GET', `${path}/${jobId}`)).result;

    // the pod that runs the job, killed at about 40 % of it and started again
    const killAt = Math.floor(matched.size * 0.4);
    let killedAt = 0;
    for (;;) {
      const j = await job();
      if (j.replayed >= killAt || (j.state !== 'running' && j.state !== 'queued')) break;
      await sleep(100);
    }
    const before = await Promise.all(pods.map(replayedBy));
    await sleep(300);
    const after = await Promise.all(pods.map(replayedBy));
    const runner = after[1] - before[1] > after[0] - before[0] ? 1 : 0;
    killedAt = (await job()).replayed;
    pods[runner].proc.child.kill('SIGKILL');
    await pods[runner].proc.stop();
    log(`replay: pod ${runner} (the runner) killed at ${killedAt} replayed; starting another`);
    if (runner === 0) api.close();
    pods[runner] = await startPod(redisPort);
    const watch = runner === 0 ? new JsonClient(pods[0].proc.port, auth, 4) : api;
    let done: Job;
    for (;;) {
      done = (await watch.request<{ result: Job }>('GET', `${path}/${jobId}`)).result;
      if (done.state !== 'running' && done.state !== 'queued') break;
      await sleep(200);
    }
    if (watch !== api) watch.close();
    if (done.state !== 'done') throw new Error(`replay job ended ${done.state}`);

    const copies = await copiesOf(redis, account, 'copies');
    const seen = new Map<string, number>();
    for (const of of copies) seen.set(of, (seen.get(of) ?? 0) + 1);
    let duplicates = 0;
    let strays = 0;
    for (const [of, n] of seen) {
      if (n > 1) duplicates += n - 1;
      if (!matched.has(of)) strays++;
    }
    let lost = 0;
    for (const id of matched) if (!seen.has(id)) lost++;
    return {
      matched: matched.size,
      rate_per_second: rate,
      job_s: round((done.finished_at - done.started_at) / 1000, 2),
      expected_s: round(matched.size / rate, 2),
      pod_killed_at_replayed: killedAt,
      copies: copies.length,
      lost,
      duplicates,
      strays,
    };
  } finally {
    api.close();
    for (const pod of pods) await pod.proc.stop();
  }
}
