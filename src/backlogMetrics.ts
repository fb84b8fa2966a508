/**
 * The backlog gauges on /metrics, collected at scrape time: the service-wide
 * totals in one Redis script call (O(1)), plus per-channel series only for
 * the accounts an operator lists in RELAY_METRICS_ACCOUNTS (O(their channels)).
 */
import client from 'prom-client';
import type { Plans } from './config';
import type { BacklogGauges, BacklogTotals } from './store/gauges';
import type { RedisClient } from './store/redis';
import type { ChannelStats, ChannelStore } from './store/types';

interface Scrape {
  totals: BacklogTotals;
  memory: { used: number; max: number };
  channels: { account: string; stats: ChannelStats[] }[];
}

/** used_memory and maxmemory, summed over the masters (one Redis, or each Cluster master). */
async function redisMemory(redis: RedisClient): Promise<{ used: number; max: number }> {
  const nodes =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
  let used = 0;
  let max = 0;
  for (const node of nodes) {
    const info = await node.info('memory');
    used += Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
    max += Number(/^maxmemory:(\d+)/m.exec(info)?.[1] ?? 0);
  }
  return { used, max };
}

export function registerBacklogMetrics(
  registry: client.Registry,
  source: {
    gauges: BacklogGauges;
    channels: ChannelStore;
    redis: RedisClient;
    metricsAccounts: readonly string[];
    plans: Plans;
  },
): void {
  // All gauges of one scrape share one read (prom-client collects them one after another).
  let pending: { at: number; scrape: Promise<Scrape> } | null = null;
  const scrape = (): Promise<Scrape> => {
    if (pending && Date.now() - pending.at < 1000) return pending.scrape;
    const started = Date.now();
    const run = (async () => ({
      totals: await source.gauges.read(),
      memory: await redisMemory(source.redis),
      channels: await Promise.all(
        source.metricsAccounts.map(async (account) => ({
          account,
          stats: await source.channels.list(account),
        })),
      ),
    }))();
    pending = { at: started, scrape: run };
    // A failed read is not reused by the next scrape.
    run.catch(() => {
      if (pending?.scrape === run) pending = null;
    });
    return run;
  };
  const registers = [registry];

  new client.Gauge({
    name: 'relayq_messages',
    help: 'Messages held, over all accounts, by state (queued: available now; delayed; in_flight: leased)',
    labelNames: ['state'],
    registers,
    async collect() {
      const { totals } = await scrape();
      this.set({ state: 'queued' }, totals.queued);
      this.set({ state: 'delayed' }, totals.delayed);
      this.set({ state: 'in_flight' }, totals.in_flight);
    },
  });
  const total = (name: string, help: string, pick: (t: BacklogTotals) => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(pick((await scrape()).totals));
      },
    });
  new client.Gauge({
    name: 'relayq_message_groups',
    help: 'Message groups holding a message, over all accounts, by state (blocked: head in flight or waiting for a retry)',
    labelNames: ['state'],
    registers,
    async collect() {
      const { totals } = await scrape();
      this.set({ state: 'ready' }, totals.groups_ready);
      this.set({ state: 'blocked' }, totals.groups_blocked);
    },
  });
  total(
    'relayq_dead_letter_messages',
    "Messages in channels that are some channel's dead-letter channel",
    (t) => t.dead_letter,
  );
  total(
    'relayq_oldest_message_age_seconds',
    'Age of the oldest message held anywhere (0 when none)',
    (t) => t.oldest_message_age_seconds,
  );
  total(
    'relayq_next_message_expiry_seconds',
    'Seconds until retention next deletes a message anywhere (+Inf when none)',
    (t) => t.next_expiry_seconds,
  );
  total(
    'relayq_storage_bytes',
    'Bytes of stored messages over all accounts',
    (t) => t.storage_bytes,
  );
  total('relayq_accounts', 'Accounts', (t) => t.accounts);
  total('relayq_channels', 'Channels over all accounts', (t) => t.channels);
  new client.Gauge({
    name: 'relayq_redis_memory_bytes',
    help: 'Redis memory: used (used_memory) and max (maxmemory, 0 when unlimited), summed over masters',
    labelNames: ['kind'],
    registers,
    async collect() {
      const { memory } = await scrape();
      this.set({ kind: 'used' }, memory.used);
      this.set({ kind: 'max' }, memory.max);
    },
  });
  // From the configuration: lets alert rules compare ages with the retention.
  const retention = new client.Gauge({
    name: 'relayq_plan_retention_seconds',
    help: "Each plan's message retention",
    labelNames: ['plan'],
    registers,
  });
  for (const [plan, limits] of Object.entries(source.plans))
    retention.set({ plan }, limits.retention_seconds);

  if (source.metricsAccounts.length === 0) return;
  new client.Gauge({
    name: 'relayq_channel_messages',
    help: 'Messages of one channel by state (dead: kept after its push destination gave up), for the accounts in RELAY_METRICS_ACCOUNTS',
    labelNames: ['account', 'channel', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const { account, stats } of (await scrape()).channels) {
        for (const c of stats) {
          this.set({ account, channel: c.id, state: 'queued' }, c.queued);
          this.set({ account, channel: c.id, state: 'delayed' }, c.delayed);
          this.set({ account, channel: c.id, state: 'in_flight' }, c.in_flight);
          this.set({ account, channel: c.id, state: 'dead' }, c.dead_count);
        }
      }
    },
  });
  new client.Gauge({
    name: 'relayq_channel_message_groups',
    help: 'Message groups of one channel by state (ready, blocked), for the accounts in RELAY_METRICS_ACCOUNTS',
    labelNames: ['account', 'channel', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const { account, stats } of (await scrape()).channels) {
        for (const c of stats) {
          const blocked = Math.min(c.groups, c.blocked_groups);
          this.set({ account, channel: c.id, state: 'ready' }, c.groups - blocked);
          this.set({ account, channel: c.id, state: 'blocked' }, blocked);
        }
      }
    },
  });
  new client.Gauge({
    name: 'relayq_channel_oldest_message_age_seconds',
    help: 'Age of the oldest message of one channel (0 when empty), for the accounts in RELAY_METRICS_ACCOUNTS',
    labelNames: ['account', 'channel'],
    registers,
    async collect() {
      this.reset();
      for (const { account, stats } of (await scrape()).channels) {
        for (const c of stats) {
          this.set({ account, channel: c.id }, c.oldest_message_age_seconds ?? 0);
        }
      }
    },
  });
}
