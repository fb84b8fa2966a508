/**
 * Message groups (issue 26, docs/api/groups.md), through the queue scripts themselves
 * (bench/scriptCalls.ts) on the Redis at REDIS_URL (default redis://127.0.0.1:6379; it is
 * written to under the bench-groups-* accounts):
 *  - fairness: one group with a big backlog and 1,000 groups of one message: no pull of 100
 *    takes more than ceil(100 / ready groups) of the big group, and every single-message group
 *    is delivered within the first 11 pulls;
 *  - order: G groups of M messages, C concurrent consumers acking or retrying at random:
 *    0 order violations per group (each group's pulls start at its lowest unacked message),
 *    0 lost;
 *  - throughput: pull + ack of the same messages with and without groups (ratio ≥ 0.5).
 * `npm run bench:groups [-- --quick]`. Not yet: two pods, a pod killed during the run, the
 * 1,000,000-message run and the SQS FIFO rate (see the report of issue 26).
 */
import Redis from 'ioredis';
import { ackScriptCall, benchScripts, pullScriptCall, sendScriptCall } from './scriptCalls';
import type { Scripts } from '../src/store/scripts';
import { parseRecord } from '../src/store/records';
import { accountKeys } from '../src/store/keys';

/** max_attempts 100 on the channel, so that random retries dead-letter nothing (the bench's own write). */
async function manyAttempts(redis: Redis, account: string, channel: string): Promise<void> {
  const key = accountKeys(account).channels;
  const config = await redis.hget(key, channel);
  if (config) await redis.hset(key, channel, config.replace(/^\d+/, '100'));
}

type Pulled = { lease: string; group: string; index: number };

function pulledOf(reply: unknown): Pulled[] {
  const flat = (reply as [number, string[]])[1];
  const out: Pulled[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const r = parseRecord(flat[i + 1]);
    out.push({ lease: flat[i], group: r.groupId, index: Number(JSON.parse(r.bodyJson)) });
  }
  return out;
}

async function sendAll(
  scripts: Scripts,
  redis: Redis,
  account: string,
  channel: string,
  messages: { group: string; index: number }[],
): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    const chunk = messages.slice(i, i + 100);
    await sendScriptCall(
      scripts,
      redis,
      account,
      channel,
      chunk.map((m) => String(m.index)),
      chunk.map((m) => m.group),
    );
  }
}

async function fairness(scripts: Scripts, redis: Redis, big: number) {
  const account = `bench-groups-fair-${Date.now()}`;
  const messages = Array.from({ length: big }, (_, i) => ({ group: 'big', index: i }));
  for (let g = 0; g < 1000; g++) messages.push({ group: `small-${g}`, index: 0 });
  await sendAll(scripts, redis, account, 'fair', messages);
  let smallLeft = 1000;
  let worstOverShare = 0;
  let pulls = 0;
  while (smallLeft > 0 && pulls < 100) {
    const ready = smallLeft + 1;
    const got = pulledOf(await pullScriptCall(scripts, redis, account, 'fair', 100));
    pulls++;
    const fromBig = got.filter((m) => m.group === 'big').length;
    worstOverShare = Math.max(worstOverShare, fromBig - Math.ceil(100 / ready));
    smallLeft -= got.filter((m) => m.group !== 'big').length;
  }
  return { big, pulls_to_serve_1000_single_groups: pulls, worst_pull_over_share: worstOverShare };
}

async function drain(
  scripts: Scripts,
  redis: Redis,
  account: string,
  channel: string,
  total: number,
  consumers: number,
  retryRate: number,
) {
  const nextUnacked = new Map<string, number>();
  let acked = 0;
  let violations = 0;
  let redeliveries = 0;
  let idle = 0;
  const started = Date.now();
  const consumer = async () => {
    while (acked < total && idle < 2000) {
      const got = pulledOf(await pullScriptCall(scripts, redis, account, channel, 10));
      if (got.length === 0) {
        idle++;
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      idle = 0;
      const ack: string[] = [];
      const retry: string[] = [];
      const byGroup = new Map<string, Pulled[]>();
      for (const m of got) byGroup.set(m.group, [...(byGroup.get(m.group) ?? []), m]);
      for (const [group, ms] of byGroup) {
        if (group !== '') {
          // a group's pull starts at its lowest unacked message and goes on in order
          const expected = nextUnacked.get(group) ?? 0;
          ms.forEach((m, k) => {
            if (m.index !== expected + k) violations++;
          });
        }
        // ack a prefix, retry the rest (a consumer that stops at its first failure)
        const cut = Math.random() < retryRate ? Math.floor(Math.random() * ms.length) : ms.length;
        ms.forEach((m, k) => (k < cut ? ack : retry).push(m.lease));
        if (group !== '') nextUnacked.set(group, (nextUnacked.get(group) ?? 0) + cut);
        redeliveries += ms.length - cut;
        acked += cut;
      }
      await ackScriptCall(scripts, redis, account, channel, ack, retry);
    }
  };
  await Promise.all(Array.from({ length: consumers }, consumer));
  const seconds = (Date.now() - started) / 1000;
  return {
    messages: total,
    lost: total - acked,
    order_violations: violations,
    redeliveries,
    msgs_per_s: Math.round(total / seconds),
  };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const scripts = benchScripts(redis);
  try {
    const fair = await fairness(scripts, redis, quick ? 10_000 : 100_000);
    console.log('fairness', JSON.stringify(fair));
    const groups = quick ? 1_000 : 10_000;
    const perGroup = quick ? 20 : 100;
    const total = groups * perGroup;
    const run = Date.now();
    const grouped = [];
    for (let i = 0; i < perGroup; i++)
      for (let g = 0; g < groups; g++) grouped.push({ group: `g${g}`, index: i });
    await sendAll(scripts, redis, `bench-groups-order-${run}`, 'order', grouped);
    await manyAttempts(redis, `bench-groups-order-${run}`, 'order');
    const order = await drain(
      scripts,
      redis,
      `bench-groups-order-${run}`,
      'order',
      total,
      16,
      0.05,
    );
    console.log('order (16 consumers, random retries)', JSON.stringify(order));
    const plain = grouped.map((m) => ({ group: '', index: m.index }));
    await sendAll(scripts, redis, `bench-groups-plain-${run}`, 'plain', plain);
    const ungrouped = await drain(
      scripts,
      redis,
      `bench-groups-plain-${run}`,
      'plain',
      total,
      16,
      0,
    );
    await sendAll(scripts, redis, `bench-groups-grouped-${run}`, 'grouped', grouped);
    const withGroups = await drain(
      scripts,
      redis,
      `bench-groups-grouped-${run}`,
      'grouped',
      total,
      16,
      0,
    );
    console.log(
      'throughput pull+ack',
      JSON.stringify({
        ungrouped: ungrouped.msgs_per_s,
        grouped: withGroups.msgs_per_s,
        ratio: Math.round((withGroups.msgs_per_s / ungrouped.msgs_per_s) * 100) / 100,
      }),
    );
  } finally {
    redis.disconnect();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
