/**
 * `npm run bench:scale`: the scale-out workload (issue 20). Command counts, not
 * throughput, so the machine's cores do not matter. For 1, 2, 4 and 8 pods
 * (in-process apps, each with its own Redis connections, sweeper and event
 * subscriptions) on a private 3-master Redis Cluster it measures: Redis
 * commands per message (send/pull/ack over HTTP, and WebSocket-notified
 * consumption), new_message deliveries per send with a subscriber on every
 * pod, sweeps/s and commands/s per shard for dedup-id traffic, and p99 from
 * send to event. Then token checks/s with 1,000 open sockets, and the cost of
 * RELAY_DURABILITY=replicated on a local primary + replica. Writes
 * bench/results/scale-<date>.json and prints a Markdown table.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pino from 'pino';
import WebSocket from 'ws';
import { buildApp, type RelayApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createRedis, type RedisClient } from '../src/store/redis';
import { keySlot } from '../src/store/slots';
import { attachWebSockets, type WebSocketHub } from '../src/ws/server';
import { startCluster } from '../test/helpers/cluster';
import { startSingleRedis, type TestRedis } from '../test/helpers/redis';
import { JsonClient } from './http';
import { sleep } from './procs';
import { round, summarize } from './stats';

let quick = process.argv.includes('--quick');
const POD_COUNTS = [1, 2, 4, 8];
/** Sizes of a full or a quick (--quick) run. */
const sizes = (q: boolean) => ({
  MESSAGES: q ? 100 : 300,
  TRAFFIC_MS: q ? 4_000 : 10_000,
  AUTH_HOLD_MS: q ? 15_000 : 65_000,
  DURABLE_MS: q ? 2_000 : 5_000,
});
let { MESSAGES, TRAFFIC_MS, AUTH_HOLD_MS, DURABLE_MS } = sizes(quick);
const RATE_PER_S = 200;
const ACCOUNTS = 30;
const SOCKETS = 1000;

interface Pod {
  relay: RelayApp;
  redis: RedisClient;
  server: http.Server;
  ws: WebSocketHub;
  port: number;
}

async function startPod(env: Record<string, string>): Promise<Pod> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RELAY_ADMIN_TOKEN: 'bench-admin-token-0123456789',
    ...env,
  });
  const redis = createRedis(config.redis);
  const relay = buildApp({ config, redis, logger: pino({ level: 'silent' }) });
  await relay.start();
  const server = http.createServer(relay.app);
  const ws = attachWebSockets(server, relay);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { relay, redis, server, ws, port: (server.address() as { port: number }).port };
}

async function stopPod(pod: Pod): Promise<void> {
  pod.ws.closeAll(1001, 'bench over');
  pod.server.closeAllConnections();
  await new Promise<void>((resolve) => pod.server.close(() => resolve()));
  await pod.relay.close();
  pod.redis.disconnect();
}

/** Commands executed per master since the last CONFIG RESETSTAT, bookkeeping excluded. */
async function commandsPerShard(redis: TestRedis): Promise<number[]> {
  return redis.eachMaster(async (node) => {
    const info = await node.info('commandstats');
    let total = 0;
    for (const match of info.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) {
      if (!/^(info|config|cluster|ping|client|command|hello|readonly|select)/.test(match[1])) {
        total += Number(match[2]);
      }
    }
    return total;
  });
}

async function resetStats(redis: TestRedis): Promise<void> {
  await redis.eachMaster((node) => node.config('RESETSTAT'));
}

async function token(pod: Pod, account: string): Promise<string> {
  if (!(await pod.relay.store.accounts.get(account))) {
    // (another pod may create it at the same moment)
    await pod.relay.store.accounts.create(account, 'paid').catch(() => undefined);
  }
  const issued = await pod.relay.relay.tokens.issue(account, {});
  return `Bearer ${issued.token}`;
}

interface Subscriber {
  ws: WebSocket;
  events: number[];
}

function subscribe(pod: Pod, channel: string, auth: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(
      `ws://127.0.0.1:${pod.port}/v1/relay/channels/${channel}/messages/subscribe`,
      { headers: { Authorization: auth } },
    );
    const sub: Subscriber = { ws, events: [] };
    ws.on('message', (data) => {
      const event = JSON.parse(String(data)) as { type: string };
      if (event.type === 'subscribed') resolve(sub);
      else if (event.type === 'new_message') sub.events.push(Date.now());
    });
    ws.on('error', reject);
  });
}

/**
 * ACCOUNTS account ids, as many on each of the 3 masters' slot ranges: with
 * thousands of accounts the spread is even; with 30 random ones it is not.
 */
function evenAccounts(): string[] {
  const per = ACCOUNTS / 3;
  const byShard: string[][] = [[], [], []];
  for (let i = 0; byShard.some((s) => s.length < per); i++) {
    const shard = Math.min(2, Math.floor(keySlot(`t${i}`) / Math.ceil(16384 / 3)));
    if (byShard[shard].length < per) byShard[shard].push(`t${i}`);
  }
  return byShard.flat();
}

const rate = (count: number, ms: number) => round(count / (ms / 1000), 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

interface PodRow {
  pods: number;
  commandsPerMessageHttp: number;
  commandsPerMessageWs: number;
  deliveriesPerSend: number;
  sweepsPerSecond: number;
  commandsPerSecondPerShard: number[];
  maxShardShare: number;
  sendToEventP99Ms: number;
  sendToEventIdleP99Ms: number;
}

async function measurePods(redis: TestRedis, pods: Pod[]): Promise<PodRow> {
  const clients = await Promise.all(
    pods.map(async (p) => new JsonClient(p.port, await token(p, 'acme'))),
  );
  const base = '/v1/relay/channels';

  // 1. send, pull, ack over HTTP, one message at a time, pods in turn
  await resetStats(redis);
  for (let i = 0; i < MESSAGES; i++) {
    const c = clients[i % clients.length];
    await c.post(`${base}/http/messages`, JSON.stringify({ body: i, dedup_id: `h${i}` }));
    const pulled = await c.post<{ result: { messages: { lease_id: string }[] } }>(
      `${base}/http/messages/pull`,
      '{}',
    );
    await c.post(
      `${base}/http/messages/ack`,
      JSON.stringify({ lease_ids: pulled.result.messages.map((m) => m.lease_id) }),
    );
  }
  const httpCommands = sum(await commandsPerShard(redis)) / MESSAGES;

  // 2. WebSocket-notified consumption over ACCOUNTS accounts (spread over the shards): a
  // subscriber on every pod for each; the one on pod 0 pulls and acks on each event;
  // sends at RATE_PER_S in total from every pod in turn, with dedup ids (their 1 s
  // windows end during the run: clean-up sweeps).
  const names = evenAccounts();
  const tenants = await Promise.all(
    Array.from({ length: ACCOUNTS }, async (_, a) => {
      const tenantClients = await Promise.all(
        pods.map(async (p) => new JsonClient(p.port, await token(p, names[a]))),
      );
      await tenantClients[0].request(
        'PUT',
        `${base}/ws`,
        JSON.stringify({ dedup_window_seconds: 1 }),
      );
      const subs = await Promise.all(pods.map((p, i) => subscribe(p, 'ws', tenantClients[i].auth)));
      return { clients: tenantClients, subs, consuming: false };
    }),
  );
  await sleep(200);
  for (const t of tenants) for (const s of t.subs) s.events.length = 0;
  const sweepsBefore = sum(pods.map((p) => p.relay.sweeper.sweeps));
  await resetStats(redis);
  let consumed = 0;
  const consume = async (t: (typeof tenants)[number]) => {
    if (t.consuming) return;
    t.consuming = true;
    try {
      for (;;) {
        const pulled = await t.clients[0].post<{ result: { messages: { lease_id: string }[] } }>(
          `${base}/ws/messages/pull`,
          JSON.stringify({ batch_size: 100 }),
        );
        if (pulled.result.messages.length === 0) break;
        consumed += pulled.result.messages.length;
        await t.clients[0].post(
          `${base}/ws/messages/ack`,
          JSON.stringify({ lease_ids: pulled.result.messages.map((m) => m.lease_id) }),
        );
      }
    } finally {
      t.consuming = false;
    }
  };
  for (const t of tenants) t.subs[0].ws.on('message', () => void consume(t).catch(() => undefined));
  const sentAt: number[][] = tenants.map(() => []);
  const started = Date.now();
  let sent = 0;
  const inFlight = new Set<Promise<unknown>>();
  while (Date.now() - started < TRAFFIC_MS) {
    const a = sent % ACCOUNTS;
    const c = tenants[a].clients[Math.floor(sent / ACCOUNTS) % pods.length];
    // sends start on schedule, not one after the other's answer
    const at = Date.now();
    const send = c
      .post(`${base}/ws/messages`, JSON.stringify({ body: sent, dedup_id: `w${sent}` }))
      .then(() => sentAt[a].push(at));
    inFlight.add(send);
    void send.finally(() => inFlight.delete(send));
    sent++;
    const due = started + (sent * 1000) / RATE_PER_S;
    if (due > Date.now()) await sleep(due - Date.now());
  }
  await Promise.all(inFlight);
  await sleep(1500);
  for (const t of tenants) await consume(t).catch(() => undefined);
  const elapsedS = (Date.now() - started) / 1000;
  const shard = await commandsPerShard(redis);
  const sweeps = sum(pods.map((p) => p.relay.sweeper.sweeps)) - sweepsBefore;
  const deliveries = sum(tenants.map((t) => sum(t.subs.map((s) => s.events.length))));
  // send -> event: the first event on pod 0's subscriber at or after each send
  const lags = tenants.flatMap((t, a) =>
    sentAt[a].map((at) => {
      const e = t.subs[0].events.find((x) => x >= at);
      return e === undefined ? Number.NaN : e - at;
    }),
  );
  for (const t of tenants) {
    for (const s of t.subs) s.ws.close();
    t.clients.forEach((c) => c.close());
  }
  const subs = [await subscribe(pods[0], 'ws', clients[0].auth)];

  // 3. isolated sends (more than a window apart): the event latency without coalescing
  const idle: number[] = [];
  for (let i = 0; i < (quick ? 20 : 50); i++) {
    await sleep(80);
    const before = subs[0].events.length;
    const t = Date.now();
    await clients[i % clients.length].post(`${base}/ws/messages`, JSON.stringify({ body: i }));
    while (subs[0].events.length === before && Date.now() - t < 2000) await sleep(1);
    idle.push(subs[0].events[before] - t);
  }
  for (const s of subs) s.ws.close();
  clients.forEach((c) => c.close());
  const totalShard = sum(shard);
  return {
    pods: pods.length,
    commandsPerMessageHttp: round(httpCommands, 1),
    commandsPerMessageWs: round(totalShard / Math.max(1, consumed), 1),
    deliveriesPerSend: round(deliveries / sent, 2),
    sweepsPerSecond: round(sweeps / elapsedS, 2),
    commandsPerSecondPerShard: shard.map((n) => round(n / elapsedS, 0)),
    maxShardShare: round(Math.max(...shard) / Math.max(1, totalShard), 2),
    sendToEventP99Ms: round(summarize(lags.filter((x) => !Number.isNaN(x))).p99, 1),
    sendToEventIdleP99Ms: round(summarize(idle).p99, 1),
  };
}

/** Token checks by open sockets (connects excluded) with 1,000 sockets over 100 tokens on 2 pods. */
async function measureAuth(redis: TestRedis): Promise<Record<string, number>> {
  const pods = [await startPod(redis.env), await startPod(redis.env)];
  const auths: string[] = [];
  for (let t = 0; t < 100; t++) auths.push(await token(pods[0], `a${t % 20}`));
  const subs: Subscriber[] = [];
  for (let i = 0; i < SOCKETS; i++) {
    subs.push(await subscribe(pods[i % 2], 'orders', auths[i % auths.length]));
  }
  const before = sum(pods.map((p) => p.ws.tokenChecks()));
  await sleep(AUTH_HOLD_MS);
  const checks = sum(pods.map((p) => p.ws.tokenChecks())) - before;
  for (const s of subs) s.ws.close();
  for (const p of pods) await stopPod(p);
  const minutes = AUTH_HOLD_MS / 60_000;
  return {
    sockets: SOCKETS,
    tokens: auths.length,
    pods: 2,
    hold_s: AUTH_HOLD_MS / 1000,
    token_checks_per_s: round(checks / (AUTH_HOLD_MS / 1000), 2),
    checks_per_token_per_minute_per_pod: round(checks / auths.length / 2 / minutes, 2),
  };
}

/** Sends/s, single and batches of 100, with `local` and `replicated` on a primary + replica. */
async function measureDurability(): Promise<Record<string, number>> {
  const primary = await startSingleRedis();
  const replica = await startSingleRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
  while (!/master_link_status:up/.test(await replica.client.info('replication'))) await sleep(50);
  const out: Record<string, number> = {};
  try {
    // a first, discarded round warms the process up, so that the first mode measured pays no JIT cost
    for (const round of ['warm-up', 'local', 'replicated']) {
      const mode = round === 'warm-up' ? 'local' : round;
      const pod = await startPod({ ...primary.env, RELAY_DURABILITY: mode });
      const client = new JsonClient(pod.port, await token(pod, `d-${mode}`));
      for (const [name, body] of [
        ['single', JSON.stringify({ body: 'x' })],
        ['batch', JSON.stringify({ messages: Array.from({ length: 100 }, () => ({ body: 'x' })) })],
      ] as const) {
        const path =
          name === 'single'
            ? '/v1/relay/channels/d/messages'
            : '/v1/relay/channels/d/messages/batch';
        let messages = 0;
        const end = Date.now() + DURABLE_MS;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (Date.now() < end) {
              await client.post(path, body);
              messages += name === 'single' ? 1 : 100;
            }
          }),
        );
        if (round !== 'warm-up') out[`${name}_${mode}_msgs_per_s`] = rate(messages, DURABLE_MS);
      }
      if (round !== 'warm-up') out[`waits_${mode}`] = pod.relay.context.replication.waitsSent;
      client.close();
      await stopPod(pod);
    }
  } finally {
    await replica.stop();
    await primary.stop();
  }
  return out;
}

function table(rows: PodRow[]): string {
  const lines = [
    '| pods | cmds/msg (HTTP send+pull+ack) | cmds/msg (WS-notified) | new_message deliveries/send | sweeps/s | cmds/s per shard | max shard share | p99 send->event at 200/s | p99 send->event, isolated |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.pods} | ${r.commandsPerMessageHttp} | ${r.commandsPerMessageWs} | ${r.deliveriesPerSend} | ${r.sweepsPerSecond} | ${r.commandsPerSecondPerShard.join(' / ')} | ${r.maxShardShare} | ${r.sendToEventP99Ms} ms | ${r.sendToEventIdleP99Ms} ms |`,
    );
  }
  return lines.join('\n');
}

/** Runs the scale workload; returns the results file. */
export async function runScale(quickRun: boolean): Promise<string> {
  quick = quickRun;
  ({ MESSAGES, TRAFFIC_MS, AUTH_HOLD_MS, DURABLE_MS } = sizes(quick));
  const rows: PodRow[] = [];
  for (const count of POD_COUNTS) {
    const redis = await startCluster();
    const pods: Pod[] = [];
    try {
      for (let i = 0; i < count; i++) pods.push(await startPod(redis.env));
      await sleep(3000); // let the pods share the due index partitions
      rows.push(await measurePods(redis, pods));
      console.log(JSON.stringify(rows[rows.length - 1]));
    } finally {
      for (const p of pods) await stopPod(p);
      await redis.stop();
    }
  }
  const cluster = await startCluster();
  let auth: Record<string, number>;
  try {
    auth = await measureAuth(cluster);
  } finally {
    await cluster.stop();
  }
  console.log(JSON.stringify(auth));
  const durability = await measureDurability();
  console.log(JSON.stringify(durability));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const file = path.join(
    __dirname,
    '..',
    '..',
    'bench',
    'results',
    `scale-${stamp}${quick ? '-quick' : ''}.json`,
  );
  fs.writeFileSync(file, JSON.stringify({ quick, rows, auth, durability }, null, 2));
  console.log(`\n${table(rows)}\n\nwritten ${file}`);
  return file;
}

if (require.main === module) {
  runScale(quick).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
