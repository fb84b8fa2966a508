/**
 * Push destinations across several relayq pods over one Redis (issue 25), to the receiver of
 * bench/pushReceiver.ts:
 * - rate: `rate_limit` `rateCount` per second, parallelism 50, 3 pods, a backlog that never
 *   runs dry for `rateSeconds`: the most request starts the receiver saw in any sliding
 *   1-second window, and all the starts of the measured span against count × seconds (target:
 *   overshoot ≤ 1 % over 60 s);
 * - kill: parallelism 10, 3 pods, a receiver that answers after `killDelayMs`; one pod is
 *   SIGKILLed once a third is delivered (its leases hold their slots until they lapse):
 *   the most requests in flight the receiver ever saw (target: never 11), every message
 *   delivered.
 */
import { execFileSync } from 'node:child_process';
import { JsonClient } from './http';
import { ADMIN_TOKEN, startRedis, startRelay, waitReady, type Proc } from './procs';
import { mostStartsInWindow, now, startReceiver, type Receiver } from './pushReceiver';
import { round } from './stats';

export interface PodsSettings {
  pods: number;
  rateCount: number;
  rateSeconds: number;
  killParallelism: number;
  killMessages: number;
  killDelayMs: number;
}

export const PODS_DEFAULTS: PodsSettings = {
  pods: 3,
  rateCount: 200,
  rateSeconds: 60,
  killParallelism: 10,
  killMessages: 5_000,
  killDelayMs: 20,
};

export interface RateResult {
  pods: number;
  count_per_s: number;
  seconds: number;
  /** request starts in the measured span */
  starts: number;
  /** most starts in any sliding window of the period */
  most_in_window: number;
  /** sliding windows (one ending at each start) with more than count */
  windows_over: number;
  /** (most_in_window - count) / count, in %, 0 when within */
  worst_window_overshoot_pct: number;
  /** starts / (count × seconds) - 1, in % */
  span_overshoot_pct: number;
}

export interface KillResult {
  pods: number;
  parallelism: number;
  messages: number;
  max_in_flight: number;
  delivered: number;
  lost: number;
  requests: number;
  pod_killed_at_delivered: number;
  /** requests in flight from the killed pod when it was killed */
  killed_pod_in_flight: number;
  seconds: number;
}

/** The process that holds a loopback TCP connection from this port (ss -tnp), or null. */
function pidOfPort(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-tnpH', `( sport = :${port} )`], { encoding: 'utf8' });
    const m = /pid=(\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !check()) await sleep(20);
  return check();
}

interface Pods {
  redis: Proc;
  pods: Proc[];
  api: JsonClient;
  receiver: Receiver;
  close(): Promise<void>;
}

/** A Redis, `count` relayq pods over it, an account, an API client on the first pod, a receiver. */
async function startPods(count: number): Promise<Pods> {
  const redis = await startRedis('everysec');
  const pods: Proc[] = [];
  const clients: JsonClient[] = [];
  const receiver = await startReceiver();
  const close = async () => {
    for (const c of clients) c.close();
    await receiver.close();
    await Promise.all(pods.map((p) => p.stop()));
    await redis.stop();
  };
  try {
    for (let i = 0; i < count; i++) {
      const pod = await startRelay(redis.port, {
        env: { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' },
      });
      pods.push(pod);
    }
    for (const pod of pods) await waitReady(pod.port);
    const admin = new JsonClient(pods[0].port, `Bearer ${ADMIN_TOKEN}`, 2);
    clients.push(admin);
    await admin.post('/v1/admin/accounts', JSON.stringify({ id: 'pushpods', plan: 'paid' }));
    const issued = await admin.post<{ result: { token: string } }>(
      '/v1/admin/accounts/pushpods/tokens',
      '{}',
    );
    const api = new JsonClient(pods[0].port, `Bearer ${issued.result.token}`, 16);
    clients.push(api);
    return { redis, pods, api, receiver, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function fill(api: JsonClient, channel: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 100) {
    const messages = Array.from({ length: Math.min(100, count - i) }, (_, j) => ({
      body: { n: i + j },
    }));
    const r = await api.post<{ result: { ids: string[] } }>(
      `/v1/relay/channels/${channel}/messages/batch`,
      JSON.stringify({ messages }),
    );
    ids.push(...r.result.ids);
  }
  return ids;
}

async function destination(p: Pods, channel: string, body: object): Promise<string> {
  const r = await p.api.post<{ result: { id: string } }>(
    `/v1/relay/channels/${channel}/destinations`,
    JSON.stringify({ url: `${p.receiver.url}/${channel}`, paused: true, ...body }),
  );
  return r.result.id;
}

const resume = (p: Pods, channel: string, id: string) =>
  p.api.request('PATCH', `/v1/relay/channels/${channel}/destinations/${id}`, '{"paused":false}');

export async function runRate(s: PodsSettings): Promise<RateResult> {
  const p = await startPods(s.pods);
  try {
    const id = await destination(p, 'rate', {
      parallelism: 50,
      rate_limit: { count: s.rateCount, period_seconds: 1 },
    });
    // more than the span can send: the limit, not the backlog, sets the pace throughout
    await fill(p.api, 'rate', Math.ceil(s.rateCount * (s.rateSeconds + 5) * 1.1));
    p.receiver.recordStarts = true;
    await resume(p, 'rate', id);
    await until(() => p.receiver.starts.length > 0, 10_000);
    // the span: from the first start, rateSeconds long
    const from = p.receiver.starts[0];
    await sleep(s.rateSeconds * 1000 + 500);
    const starts = p.receiver.starts.filter((t) => t < from + s.rateSeconds * 1000);
    p.receiver.recordStarts = false;
    await p.api.request('DELETE', `/v1/relay/channels/rate/destinations/${id}`);
    const most = mostStartsInWindow(starts, 1000);
    let over = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (starts[i] - starts[j] >= 1000) j++;
      if (i - j + 1 > s.rateCount) over++;
    }
    return {
      pods: s.pods,
      count_per_s: s.rateCount,
      seconds: s.rateSeconds,
      starts: starts.length,
      most_in_window: most,
      windows_over: over,
      worst_window_overshoot_pct: round((Math.max(0, most - s.rateCount) / s.rateCount) * 100, 2),
      span_overshoot_pct: round((starts.length / (s.rateCount * s.rateSeconds) - 1) * 100, 2),
    };
  } finally {
    await p.close();
  }
}

export async function runKill(s: PodsSettings): Promise<KillResult> {
  const p = await startPods(s.pods);
  try {
    // a short timeout: the killed pod's leases lapse within timeout_ms + 5 s
    const id = await destination(p, 'kill', {
      parallelism: s.killParallelism,
      timeout_ms: 2000,
    });
    const ids = await fill(p.api, 'kill', s.killMessages);
    p.receiver.delayMs = s.killDelayMs;
    const started = now();
    await resume(p, 'kill', id);
    await until(() => p.receiver.delivered.size >= s.killMessages / 3, 300_000);
    // the victim: a pod with requests in flight now (the one sending the most)
    await until(() => p.receiver.inFlight >= s.killParallelism / 2, 10_000);
    const holders = new Map<number, number>();
    for (const port of p.receiver.inFlightPorts.values()) {
      const pid = pidOfPort(port);
      if (pid !== null) holders.set(pid, (holders.get(pid) ?? 0) + 1);
    }
    const busiest = [...holders.entries()].sort((x, y) => y[1] - x[1])[0];
    const victim =
      p.pods.find((pod) => pod.child.pid === busiest?.[0]) ?? p.pods[p.pods.length - 1];
    const killedAt = p.receiver.delivered.size;
    victim.child.kill('SIGKILL');
    const all = () => ids.every((m) => p.receiver.delivered.has(m));
    await until(all, 300_000);
    const delivered = ids.filter((m) => p.receiver.delivered.has(m)).length;
    return {
      pods: s.pods,
      parallelism: s.killParallelism,
      messages: s.killMessages,
      max_in_flight: p.receiver.maxInFlight,
      delivered,
      lost: s.killMessages - delivered,
      requests: p.receiver.requests,
      pod_killed_at_delivered: killedAt,
      killed_pod_in_flight: busiest?.[1] ?? 0,
      seconds: round((now() - started) / 1000, 1),
    };
  } finally {
    await p.close();
  }
}
