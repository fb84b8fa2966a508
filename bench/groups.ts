/**
 * Message groups (issue 26, docs/api/groups.md) on their own redis-server (AOF, fsync everysec)
 * and two relayq processes:
 *  - fairness: one group of `big` messages beside 1,000 groups of one: no pull of 100 takes
 *    more than ceil(100 / ready groups) of the big group, and every single-message group is
 *    delivered within the first 11 pulls (through the pull script itself);
 *  - order: `messages` over `groups` groups, 16 consumers over the two pods (HTTP pull of 10),
 *    each acking or retrying at random; one pod is killed (SIGKILL) and a new one started
 *    once a third is acked; a checker of each group's received sequence (counting
 *    redeliveries): 0 order violations, 0 lost;
 *  - throughput: pull + ack of `throughput` messages over the two pods, without groups and
 *    then over `groups` groups (ratio ≥ 0.5);
 *  - SQS FIFO through @aws-sdk/client-sqs: SendMessageBatch of 10 over the groups, then
 *    ReceiveMessage of 10 + DeleteMessageBatch (≥ 3,000 msgs/s).
 * Consumers and order checker: bench/groupOrder.ts; the SQS phase: bench/groupsSqs.ts.
 * `npm run bench:groups [-- --quick] [-- --messages N --groups G --big-group B --throughput N
 * --fifo N]`, or `npm run bench -- --only groups`. Defaults: 50,000 messages over 1,000
 * groups; the full scale is `--messages 1000000 --groups 10000 --big-group 100000`.
 */
import Redis from 'ioredis';
import { consume, OrderChecker, type PodSlot } from './groupOrder';
import { sqsFifo, type SqsFifoResult } from './groupsSqs';
import { JsonClient } from './http';
import { ADMIN_TOKEN, startRedis, startRelay, stopAll, waitReady, type Proc } from './procs';
import { benchScripts, pullScriptCall, sendScriptCall } from './scriptCalls';
import { median, round } from './stats';
import { parseRecord } from '../src/store/records';

export interface GroupsSettings {
  messages: number;
  groups: number;
  big: number;
  throughput: number;
  fifo: number;
  consumers: number;
}

export interface GroupsResult {
  settings: GroupsSettings;
  fairness: {
    big: number;
    singles: number;
    pulls_to_serve_singles: number;
    worst_over_share: number;
  };
  order: {
    messages: number;
    groups: number;
    consumers: number;
    pods: number;
    pod_killed_at_acked: number;
    order_violations: number;
    duplicates: number;
    lost: number;
    redeliveries: number;
    retried: number;
    request_errors: number;
    seconds: number;
    msgs_per_s: number;
  };
  throughput: {
    messages: number;
    groups: number;
    ungrouped_per_s: number;
    grouped_per_s: number;
    ratio: number;
  };
  sqs_fifo: SqsFifoResult;
}

export function groupsSettings(argv: string[]): GroupsSettings {
  const value = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const quick = argv.includes('--quick');
  return {
    messages: value('--messages', quick ? 10_000 : 50_000),
    groups: value('--groups', quick ? 200 : 1_000),
    big: value('--big-group', quick ? 10_000 : 100_000),
    throughput: value('--throughput', quick ? 10_000 : 50_000),
    fifo: value('--fifo', quick ? 5_000 : 20_000),
    consumers: 16,
  };
}

const SQS_KEY = 'bench-sqs-secret-key-0123456789abcdef';
const ACCOUNT = 'bench-groups';
const VISIBILITY_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (...a: unknown[]) =>
  console.log(`[${new Date().toISOString().slice(11, 19)}] groups`, ...a);

const startPod = async (redisPort: number) => {
  const proc = await startRelay(redisPort, {
    env: { RELAY_SQS_SECRET_KEY: SQS_KEY, LOG_LEVEL: 'warn' },
  });
  await waitReady(proc.port);
  return proc;
};

/** The big group beside 1,000 singles, through the send and pull scripts. */
async function fairness(redis: Redis, big: number): Promise<GroupsResult['fairness']> {
  const scripts = benchScripts(redis);
  const groups = [
    ...Array<string>(big).fill('big'),
    ...Array.from({ length: 1000 }, (_, g) => `s${g}`),
  ];
  for (let i = 0; i < groups.length; i += 100) {
    const chunk = groups.slice(i, i + 100);
    await sendScriptCall(
      scripts,
      redis,
      'bench-groups-fair',
      'fair',
      chunk.map(() => '0'),
      chunk,
    );
  }
  let singlesLeft = 1000;
  let worst = -Infinity;
  let pulls = 0;
  while (singlesLeft > 0 && pulls < 100) {
    const ready = singlesLeft + 1;
    const flat = (
      (await pullScriptCall(scripts, redis, 'bench-groups-fair', 'fair', 100)) as [number, string[]]
    )[1];
    pulls++;
    let fromBig = 0;
    for (let i = 1; i < flat.length; i += 2) {
      if (parseRecord(flat[i]).groupId === 'big') fromBig++;
      else singlesLeft--;
    }
    worst = Math.max(worst, fromBig - Math.ceil(100 / ready));
  }
  return { big, singles: 1000, pulls_to_serve_singles: pulls, worst_over_share: worst };
}

/** `total` messages, `groups` groups (none: 0) in send order per group, by 4 senders. */
async function fill(api: JsonClient, channel: string, total: number, groups: number) {
  const senders = 4;
  const perGroup = Math.ceil(total / Math.max(groups, 1));
  await Promise.all(
    Array.from({ length: senders }, async (_, s) => {
      // each group is sent by one sender, so that its messages are stored in index order
      const mine: { body: number; group_id?: string }[] = [];
      for (let i = 0; i < perGroup; i++) {
        for (let g = s; g < Math.max(groups, 1); g += senders) {
          mine.push(groups ? { body: i, group_id: `g${g}` } : { body: i });
        }
      }
      for (let i = 0; i < mine.length; i += 100) {
        const messages = JSON.stringify({ messages: mine.slice(i, i + 100) });
        await api.post(`/v1/relay/channels/${channel}/messages/batch`, messages);
      }
    }),
  );
  return perGroup * Math.max(groups, 1);
}

interface ChannelView {
  queued: number;
  delayed: number;
  in_flight: number;
}

async function empty(api: JsonClient, channel: string): Promise<boolean> {
  const v = await api.request<{ result: ChannelView }>('GET', `/v1/relay/channels/${channel}`);
  return v.result.queued + v.result.delayed + v.result.in_flight === 0;
}

/** Consumes the channel over the pods until it is empty; `during` runs beside (a pod kill). */
async function drain(
  pods: PodSlot[],
  api: JsonClient,
  channel: string,
  s: GroupsSettings,
  retryRate: number,
  checker: OrderChecker | null,
  during: () => Promise<void> = async () => undefined,
) {
  let done = false;
  const started = Date.now();
  const watch = async () => {
    while (!(await empty(api, channel).catch(() => false))) await sleep(200);
    done = true;
  };
  const [{ errors }] = await Promise.all([
    consume({
      pods,
      channel,
      consumers: s.consumers,
      retryRate,
      checker,
      visibilityMs: VISIBILITY_MS,
      done: () => done,
    }),
    watch(),
    during(),
  ]);
  return { errors, seconds: (Date.now() - started) / 1000 };
}

async function configure(api: JsonClient, channel: string): Promise<void> {
  // random retries must never dead-letter: the most attempts a channel allows
  await api.request('PUT', `/v1/relay/channels/${channel}`, JSON.stringify({ max_attempts: 100 }));
}

async function order(
  pods: PodSlot[],
  procs: Proc[],
  redisPort: number,
  api: JsonClient,
  auth: string,
  s: GroupsSettings,
): Promise<GroupsResult['order']> {
  await configure(api, 'order');
  const total = await fill(api, 'order', s.messages, s.groups);
  log(`order: ${total} messages sent over ${s.groups} groups`);
  const checker = new OrderChecker();
  let killedAt = 0;
  const killAndRestart = async () => {
    while (checker.delivered - checker.retried < total / 3) await sleep(50);
    killedAt = checker.delivered - checker.retried;
    const victim = procs[1];
    pods[1].up = false;
    victim.child.kill('SIGKILL');
    await victim.stop();
    pods[1].client.close();
    log(`order: pod killed after ~${killedAt} acks; starting another`);
    await sleep(1000);
    procs[1] = await startPod(redisPort);
    pods[1].client = new JsonClient(procs[1].port, auth, 64);
    pods[1].up = true;
  };
  const { errors, seconds } = await drain(pods, api, 'order', s, 0.05, checker, killAndRestart);
  const groups = Array.from({ length: s.groups }, (_, g) => `g${g}`);
  return {
    messages: total,
    groups: s.groups,
    consumers: s.consumers,
    pods: 2,
    pod_killed_at_acked: killedAt,
    order_violations: checker.violations,
    duplicates: checker.duplicates,
    lost: checker.lost(groups, total / s.groups),
    redeliveries: checker.redelivered,
    retried: checker.retried,
    request_errors: errors,
    seconds: round(seconds, 1),
    msgs_per_s: Math.round(total / seconds),
  };
}

async function throughput(
  pods: PodSlot[],
  api: JsonClient,
  s: GroupsSettings,
): Promise<GroupsResult['throughput']> {
  // in turns (3 rounds of a third each, the order swapped every round), so that both see the
  // same moments of the shared machine; the ratio is the median of the rounds'
  const rounds = 3;
  const n = Math.ceil(s.throughput / rounds);
  const rate = async (channel: string, groups: number) => {
    const total = await fill(api, channel, n, groups);
    const { seconds } = await drain(pods, api, channel, s, 0, null);
    return total / seconds;
  };
  const ungrouped: number[] = [];
  const grouped: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) ungrouped.push(await rate('plain', 0));
    grouped.push(await rate('grouped', s.groups));
    if (r % 2 === 1) ungrouped.push(await rate('plain', 0));
  }
  return {
    messages: n * rounds,
    groups: s.groups,
    ungrouped_per_s: Math.round(median(ungrouped)),
    grouped_per_s: Math.round(median(grouped)),
    ratio: round(median(grouped.map((g, r) => g / ungrouped[r])), 2),
  };
}

export async function runGroups(s: GroupsSettings): Promise<GroupsResult> {
  const redisProc = await startRedis('everysec');
  const procs = [await startPod(redisProc.port), await startPod(redisProc.port)];
  const admin = new JsonClient(procs[0].port, `Bearer ${ADMIN_TOKEN}`, 2);
  const redis = new Redis(redisProc.port, '127.0.0.1');
  let api: JsonClient | undefined;
  const pods: PodSlot[] = [];
  try {
    await admin.post('/v1/admin/accounts', JSON.stringify({ id: ACCOUNT, plan: 'paid' }));
    const issued = await admin.post<{
      result: { token: string; aws_access_key_id: string; aws_secret_access_key: string };
    }>(`/v1/admin/accounts/${ACCOUNT}/tokens`, JSON.stringify({ aws_credentials: true }));
    const auth = `Bearer ${issued.result.token}`;
    api = new JsonClient(procs[0].port, auth, 8);
    for (const p of procs) pods.push({ client: new JsonClient(p.port, auth, 64), up: true });

    log(`fairness: one group of ${s.big} beside 1,000 single groups`);
    const fair = await fairness(redis, s.big);
    log(JSON.stringify(fair));
    log(`order: ${s.messages} messages, ${s.groups} groups, ${s.consumers} consumers, 2 pods`);
    const ord = await order(pods, procs, redisProc.port, api, auth, s);
    log(JSON.stringify(ord));
    log(`throughput: ${s.throughput} messages, without groups and over ${s.groups} groups`);
    const tp = await throughput(pods, api, s);
    log(JSON.stringify(tp));
    log(`SQS FIFO: ${s.fifo} messages in batches of 10`);
    const fifo = await sqsFifo(
      procs,
      {
        accessKeyId: issued.result.aws_access_key_id,
        secretAccessKey: issued.result.aws_secret_access_key,
      },
      s,
    );
    log(JSON.stringify(fifo));
    return { settings: s, fairness: fair, order: ord, throughput: tp, sqs_fifo: fifo };
  } finally {
    redis.disconnect();
    admin.close();
    api?.close();
    for (const p of pods) p.client.close();
    for (const p of procs) await p.stop();
    await redisProc.stop();
  }
}

if (require.main === module) {
  runGroups(groupsSettings(process.argv.slice(2)))
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => stopAll());
}
