/** The workloads W1-W5 of issue 9, each a function of the systems it measures. */
import WebSocket from 'ws';
import type Redis from 'ioredis';
import { JsonClient } from './http';
import { sleep } from './procs';
import { pool, round, summarize } from './stats';
import { now, relayPaths, type Msg, type QueueSystem, RawLua } from './systems';

const PAD = 'x'.repeat(200);

/** A JSON body of about 200 bytes carrying its index and send time. */
export function body(i: number, t = now()): string {
  const head = `{"i":${i},"t":${t.toFixed(3)},"p":"`;
  return `${head}${PAD.slice(0, Math.max(0, 198 - head.length))}"}`;
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/** Round trips of one small write at a time (INCR): on an idle Redis, the cost of its fsync policy. */
export async function writeProbe(
  redis: Redis,
  samples: number,
): Promise<{ p50_ms: number; p99_ms: number }> {
  const lat: number[] = [];
  for (let k = 0; k < samples; k++) {
    const t = now();
    await redis.incr('bench:fsync-probe');
    lat.push(now() - t);
  }
  await redis.del('bench:fsync-probe');
  const s = summarize(lat);
  return { p50_ms: s.p50, p99_ms: s.p99 };
}

// ---------------------------------------------------------------------------
// W1 throughput

export interface W1Result {
  produce_msgs_s: number;
  drain_msgs_s: number;
  mixed_msgs_s: number;
  mixed_p50_ms: number;
  mixed_p99_ms: number;
  bytes_per_msg: number | null;
  exactly_once: boolean;
  missing: number;
  duplicates: number;
}

async function produce(sys: QueueSystem, from: number, n: number, deadline: number) {
  let next = from;
  const end = from + n;
  await pool(
    4,
    async () => {
      if (next >= end) return false;
      const start = next;
      const count = Math.min(100, end - start);
      next += count;
      const t = now();
      const bodies: string[] = [];
      for (let i = start; i < start + count; i++) bodies.push(body(i, t));
      await sys.sendBatch(bodies);
      return true;
    },
    deadline,
  );
}

class Receiver {
  readonly seen: Uint8Array;
  received = 0;
  duplicates = 0;
  latencies: number[] = [];
  private waiter: (() => void) | null = null;

  constructor(
    readonly total: number,
    private readonly recordLatency = false,
  ) {
    this.seen = new Uint8Array(total);
  }

  on = (msgs: Msg[], at: number) => {
    for (const m of msgs) {
      if (this.seen[m.i]) this.duplicates++;
      else {
        this.seen[m.i] = 1;
        this.received++;
      }
      if (this.recordLatency) this.latencies.push(at - m.t);
    }
    if (this.waiter && this.received >= this.target) this.waiter();
  };

  target = 0;
  until(target: number, timeoutMs: number): Promise<boolean> {
    this.target = target;
    if (this.received >= target) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.waiter = null;
        resolve(false);
      }, timeoutMs);
      this.waiter = () => {
        clearTimeout(t);
        this.waiter = null;
        resolve(true);
      };
    });
  }
}

/** Produce n, drain n, then n more with producers and consumers at once. */
export async function w1(
  sys: QueueSystem,
  n: number,
  redis: Redis | null,
  timeoutMs: number,
): Promise<W1Result> {
  const rx = new Receiver(2 * n);
  const memBefore = redis ? await usedMemory(redis) : 0;
  let t0 = now();
  await produce(sys, 0, n, Date.now() + timeoutMs);
  const produceS = (now() - t0) / 1000;
  const bytes = redis ? round(((await usedMemory(redis)) - memBefore) / n, 0) : null;

  t0 = now();
  let stop = await sys.startConsumers(4, rx.on);
  const drained = await rx.until(n, timeoutMs);
  const drainS = (now() - t0) / 1000;
  await stop();
  if (!drained) console.error(`  ${sys.name}: drain timed out at ${rx.received}/${n}`);

  const mixed = new Receiver(2 * n, true);
  const both = (msgs: Msg[], at: number) => (msgs[0].i < n ? rx.on(msgs, at) : mixed.on(msgs, at));
  stop = await sys.startConsumers(4, both);
  t0 = now();
  await produce(sys, n, n, Date.now() + timeoutMs);
  const mixedDone = await mixed.until(n, timeoutMs);
  const mixedS = (now() - t0) / 1000;
  await sleep(200); // let late duplicates show
  await stop();
  if (!mixedDone) console.error(`  ${sys.name}: mixed timed out at ${mixed.received}/${n}`);
  const lat = summarize(mixed.latencies);
  const missing = n - rx.received + (n - mixed.received);
  const duplicates = rx.duplicates + mixed.duplicates;
  return {
    produce_msgs_s: round(n / produceS, 0),
    drain_msgs_s: drained ? round(n / drainS, 0) : NaN,
    mixed_msgs_s: mixedDone ? round(n / mixedS, 0) : NaN,
    mixed_p50_ms: lat.p50,
    mixed_p99_ms: lat.p99,
    bytes_per_msg: bytes,
    exactly_once: missing === 0 && duplicates === 0,
    missing,
    duplicates,
  };
}

// ---------------------------------------------------------------------------
// W2 single sends

export interface W2Result {
  req_s: number;
  p50_ms: number;
  p99_ms: number;
}

/** 32 single sends in flight for `durationMs`; adds each one's latency to `lat`; returns the ms taken. */
async function singleSends(sys: QueueSystem, durationMs: number, lat: number[]): Promise<number> {
  let i = lat.length;
  const end = Date.now() + durationMs;
  const t0 = now();
  await pool(
    32,
    async () => {
      const t = now();
      await sys.sendOne(body(i++, t));
      lat.push(now() - t);
      return true;
    },
    end,
  );
  return now() - t0;
}

function w2Result(lat: number[], ms: number): W2Result {
  const s = summarize(lat);
  return { req_s: round(lat.length / (ms / 1000), 0), p50_ms: s.p50, p99_ms: s.p99 };
}

export async function w2(sys: QueueSystem, durationMs: number): Promise<W2Result> {
  const lat: number[] = [];
  return w2Result(lat, await singleSends(sys, durationMs, lat));
}

/**
 * W2 for two systems whose ratio is a target: `durationMs` each, in 4 slices taken in
 * turns (the order swapped every slice), so that both see the same moments of a
 * shared machine.
 */
export async function w2Pair(
  a: QueueSystem,
  b: QueueSystem,
  durationMs: number,
): Promise<[W2Result, W2Result]> {
  const slices = 4;
  const lat: [number[], number[]] = [[], []];
  const ms = [0, 0];
  for (let k = 0; k < slices; k++) {
    for (const j of k % 2 ? [1, 0] : [0, 1]) {
      ms[j] += await singleSends(j ? b : a, durationMs / slices, lat[j]);
    }
  }
  return [w2Result(lat[0], ms[0]), w2Result(lat[1], ms[1])];
}

// ---------------------------------------------------------------------------
// relayq-only workloads (W3, W4, W5)

export interface RelayTarget {
  port: number;
  auth: string;
  account: string;
}

function wsUrl(r: RelayTarget, path: string): string {
  return `ws://127.0.0.1:${r.port}${path}`;
}

function openSocket(
  r: RelayTarget,
  path: string,
  onEvent: (ev: { type: string; channelId?: string }) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(r, path), { headers: { authorization: r.auth } });
    const t = setTimeout(() => reject(new Error(`WebSocket ${path}: no subscribed event`)), 15_000);
    ws.on('message', (data) => {
      const ev = JSON.parse(String(data)) as { type: string; channelId?: string };
      if (ev.type === 'subscribed') {
        clearTimeout(t);
        resolve(ws);
      } else onEvent(ev);
    });
    ws.on('error', (err) => {
      clearTimeout(t);
      reject(err);
    });
  });
}

async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          const t = setTimeout(() => (ws.terminate(), resolve()), 2000);
          ws.once('close', () => (clearTimeout(t), resolve()));
          ws.close();
        }),
    ),
  );
}

export interface LatencyResult {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  received: number;
  offered: number;
}

type PullReply = { result: { messages: { body: Msg; lease_id: string }[] } };

/**
 * W3: `rate` msgs/s offered for `durationMs` (a batch of 50 every 10 ms), consumed by
 * long-poll loops (`mode` poll) or by pulls triggered by WebSocket events (`mode` ws).
 */
export async function w3(
  r: RelayTarget,
  channel: string,
  mode: 'poll' | 'ws',
  rate: number,
  durationMs: number,
): Promise<LatencyResult> {
  const p = relayPaths(channel);
  const producer = new JsonClient(r.port, r.auth, 64);
  const consumer = new JsonClient(r.port, r.auth, 16);
  const lat: number[] = [];
  let received = 0;
  let running = true;
  const handle = async (reply: PullReply) => {
    const at = now();
    const msgs = reply.result.messages;
    if (msgs.length === 0) return 0;
    for (const m of msgs) lat.push(at - m.body.t);
    received += msgs.length;
    await consumer.post(p.ack, JSON.stringify({ lease_ids: msgs.map((m) => m.lease_id) }));
    return msgs.length;
  };
  let loops: Promise<void>;
  let sockets: WebSocket[] = [];
  if (mode === 'poll') {
    loops = pool(4, async () => {
      if (!running) return false;
      await handle(
        await consumer.post<PullReply>(
          p.pull,
          '{"batch_size":100,"visibility_timeout_ms":30000,"wait_ms":1000}',
          10_000,
        ),
      );
      return running;
    }).then(() => undefined);
  } else {
    // on each event, pull until empty; one pull in flight per consumer (2 consumers)
    const busy = [false, false];
    const again = [false, false];
    const drain = async (c: number) => {
      if (busy[c]) {
        again[c] = true;
        return;
      }
      busy[c] = true;
      try {
        do {
          again[c] = false;
          while (
            running &&
            (await handle(
              await consumer.post<PullReply>(
                p.pull,
                '{"batch_size":100,"visibility_timeout_ms":30000}',
              ),
            )) > 0
          );
        } while (again[c] && running);
      } finally {
        busy[c] = false;
      }
    };
    sockets = await Promise.all(
      [0, 1].map((c) =>
        openSocket(r, `${p.send}/subscribe`, () => {
          drain(c).catch((err) => {
            if (running) console.error('ws pull error:', (err as Error).message);
          });
        }),
      ),
    );
    loops = Promise.resolve();
  }
  // offered load: batches of 50 every 10 ms, paced against the clock
  const perBatch = 50;
  const intervalMs = (perBatch * 1000) / rate;
  const start = now();
  let sent = 0;
  let i = 0;
  const sends: Promise<unknown>[] = [];
  while (now() - start < durationMs) {
    const due = start + (sent / perBatch) * intervalMs;
    const wait = due - now();
    if (wait > 0) await sleep(Math.max(1, Math.floor(wait)));
    const t = now();
    const bodies: string[] = [];
    for (let k = 0; k < perBatch; k++) bodies.push(`{"body":${body(i++, t)}}`);
    sent += perBatch;
    sends.push(producer.post(p.batch, `{"messages":[${bodies.join(',')}]}`));
    if (sends.length > 200) await Promise.all(sends.splice(0, 100));
  }
  await Promise.all(sends);
  const deadline = Date.now() + 10_000;
  while (received < sent && Date.now() < deadline) await sleep(20);
  running = false;
  await loops;
  await closeSockets(sockets);
  producer.close();
  consumer.close();
  const s = summarize(lat);
  return { p50_ms: s.p50, p99_ms: s.p99, max_ms: s.max, received, offered: sent };
}

export interface FanoutResult {
  p50_ms: number;
  p99_ms: number;
  /** p99 over sends of the time until the last subscriber had the event */
  last_p99_ms: number;
  events: number;
  expected: number;
}

/** Subscribers of some channels on one server, and what they have seen. */
class Fanout {
  readonly sender: JsonClient;
  readonly sockets: WebSocket[] = [];
  readonly arrivals = new Map<string, number[]>();
  readonly lat: number[] = [];
  readonly last: number[] = [];
  events = 0;
  expected = 0;

  constructor(readonly r: RelayTarget) {
    this.sender = new JsonClient(r.port, r.auth, 32);
  }

  /** One subscriber per entry of `channels` (a channel may repeat), 50 connecting at a time. */
  async open(channels: string[]): Promise<void> {
    for (let k = 0; k < channels.length; k += 50) {
      const part = await Promise.all(
        channels.slice(k, k + 50).map((c) =>
          openSocket(this.r, `${relayPaths(c).send}/subscribe`, (ev) => {
            if (ev.type !== 'new_message' || !ev.channelId) return;
            this.arrivals.get(ev.channelId)?.push(now());
          }),
        ),
      );
      this.sockets.push(...part);
    }
  }

  /** A send to each target channel; waits until each has `perSend` events (5 s at most). */
  async round(targets: string[], perSend: number, round: number): Promise<void> {
    const sentAt = new Map<string, number>();
    for (const c of targets) this.arrivals.set(c, []);
    let idx = 0;
    await pool(32, async () => {
      if (idx >= targets.length) return false;
      const c = targets[idx++];
      await this.sender.post(relayPaths(c).send, `{"body":${body(round)}}`);
      sentAt.set(c, now());
      return true;
    });
    this.expected += targets.length * perSend;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && targets.some((c) => this.arrivals.get(c)!.length < perSend))
      await sleep(5);
    for (const c of targets) {
      const a = this.arrivals.get(c)!;
      const s = sentAt.get(c)!;
      this.events += a.length;
      for (const x of a) this.lat.push(Math.max(0, x - s));
      if (a.length) this.last.push(Math.max(0, Math.max(...a) - s));
    }
  }

  async close(): Promise<FanoutResult> {
    await closeSockets(this.sockets);
    this.sender.close();
    const s = summarize(this.lat);
    return {
      p50_ms: s.p50,
      p99_ms: s.p99,
      last_p99_ms: summarize(this.last).p99,
      events: this.events,
      expected: this.expected,
    };
  }
}

/** W4, one channel x `subs` subscribers on each of two servers, their rounds taken in turn. */
export async function w4Pair(
  a: RelayTarget,
  b: RelayTarget,
  channel: string,
  subs: number,
  rounds: number,
): Promise<[FanoutResult, FanoutResult]> {
  const both = [new Fanout(a), new Fanout(b)];
  for (const f of both) await f.open(Array.from({ length: subs }, () => channel));
  for (let k = 0; k < rounds; k++) {
    // alternate who goes first, so that neither always follows the other's burst
    for (const f of k % 2 ? [...both].reverse() : both) {
      await f.round([channel], subs, k);
      await sleep(100);
    }
  }
  return [await both[0].close(), await both[1].close()];
}

/** W4, one subscriber on each of `subs` channels. */
export async function w4(
  r: RelayTarget,
  prefix: string,
  subs: number,
  rounds: number,
): Promise<FanoutResult> {
  const f = new Fanout(r);
  const channels = Array.from({ length: subs }, (_, k) => `${prefix}-${k}`);
  await f.open(channels);
  for (let k = 0; k < rounds; k++) {
    await f.round(channels, 1, k);
    await sleep(100);
  }
  return f.close();
}

export interface ScaleResult {
  send_p50_ms: number;
  send_p99_ms: number;
  pull_p50_ms: number;
  pull_p99_ms: number;
}

/** Sequential single sends and pull+ack pairs against a channel as it stands. */
export async function probe(
  r: RelayTarget,
  channel: string,
  samples: number,
): Promise<ScaleResult> {
  const http = new JsonClient(r.port, r.auth, 4);
  const p = relayPaths(channel);
  const sends: number[] = [];
  const pulls: number[] = [];
  for (let k = 0; k < samples; k++) {
    let t = now();
    await http.post(p.send, `{"body":${body(k)}}`);
    sends.push(now() - t);
    t = now();
    const reply = await http.post<PullReply>(
      p.pull,
      '{"batch_size":10,"visibility_timeout_ms":30000}',
    );
    pulls.push(now() - t);
    await http.post(
      p.ack,
      JSON.stringify({ lease_ids: reply.result.messages.map((m) => m.lease_id) }),
    );
  }
  http.close();
  const s = summarize(sends);
  const q = summarize(pulls);
  return { send_p50_ms: s.p50, send_p99_ms: s.p99, pull_p50_ms: q.p50, pull_p99_ms: q.p99 };
}

/** Fills a channel to `n` messages through the Lua scripts directly (fast), in batches of 100. */
export async function fill(
  lua: RawLua,
  account: string,
  channel: string,
  n: number,
): Promise<void> {
  let done = 0;
  await pool(8, async () => {
    if (done >= n) return false;
    const count = Math.min(100, n - done);
    const start = done;
    done += count;
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) bodies.push(body(start + i));
    await lua.send(account, channel, bodies);
    return true;
  });
}
