/**
 * What one /metrics scrape costs Redis, measured in commands processed (those
 * run inside scripts included), with 10,000 channels stored (100 accounts of
 * 100 channels): a constant for the service-wide gauges, plus a constant per
 * channel of the accounts listed in RELAY_METRICS_ACCOUNTS.
 */
import crypto from 'node:crypto';
import { eventually, startApp, type TestApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { sample } from './serve';

const ACCOUNTS = 100;
/** commands of the service-wide part of a scrape, whatever is stored */
const TOTALS_COST = 7;
/** commands of a listed account's own part (HKEYS of its channels and a few account-level reads) */
const PER_ACCOUNT_COST = 4;
/** commands of one channel_stats call (with the ZCOUNT of its push destination's dead messages) */
const PER_CHANNEL_COST = 13;

const CHANNELS = 100;
const env = {
  RELAY_GAUGE_INTERVAL_MS: '50',
  RELAY_PLANS: '{"wide":{"max_storage_bytes":1000000,"max_channels":100,"retention_seconds":3600}}',
};

const rq = useRelay({ env, flush: false });

// the accounts and channels whose gauges a scrape reads
beforeAll(async () => {
  const { store } = rq.app.relay;
  for (let i = 0; i < ACCOUNTS; i++) {
    const account = `acct${i}`;
    await store.accounts.create(account, 'wide');
    await Promise.all(
      Array.from({ length: CHANNELS }, (_, c) => store.channels.configure(account, `ch${c}`, {})),
    );
  }
  const caller = { accountId: 'acct0', tokenId: 'seed', proof: 'account', count: false };
  await store.queue.send(caller, 'ch0', [
    {
      id: crypto.randomUUID(),
      delayMs: 0,
      size: 3,
      contentType: 'json',
      dedupId: null,
      metadataJson: '{}',
      bodyJson: '1',
    },
  ]);
}, 120_000);

async function commandsProcessed(): Promise<number> {
  const info = await rq.app.redis.info('stats');
  return Number(/^total_commands_processed:(\d+)/m.exec(info)![1]);
}

/** Commands Redis processed during one scrape of `of`, with background work stopped. */
async function commandsPerScrape(of: TestApp): Promise<{ commands: number; text: string }> {
  // background work too: the push deliveries' poll of the destinations (once a second), the
  // replay runner's look for jobs (every tick) and the due index repair's walk
  await of.relay.deliveries?.stop();
  await of.relay.replayRunner.stop();
  await of.relay.dueRepair.stop();
  // Two INFO calls back to back: what measuring alone adds.
  const base0 = await commandsProcessed();
  const base1 = await commandsProcessed();
  const before = await commandsProcessed();
  const text = await of.relay.metrics.registry.metrics();
  const after = await commandsProcessed();
  return { commands: after - before - (base1 - base0), text };
}

test('a scrape costs a constant number of commands with 10,000 channels', async () => {
  await eventually(async () => {
    const text = await rq.app.relay.metrics.registry.metrics();
    return sample(text, 'relayq_channels') === ACCOUNTS * CHANNELS;
  }, 60_000);
  await rq.app.relay.sweeper.stop();
  await rq.app.relay.gauges.stop();
  // let a cached read of the previous scrape expire
  await new Promise((r) => setTimeout(r, 1100));
  const { commands, text } = await commandsPerScrape(rq.app);
  expect(sample(text, 'relayq_channels')).toBe(10_000);
  expect(sample(text, 'relayq_accounts')).toBe(100);
  expect(sample(text, 'relayq_messages', { state: 'queued' })).toBe(1);
  // EVALSHA gauges_read (HMGET, SCARD, 2 ZRANGE, TIME inside) and INFO memory
  console.log(`commands per scrape, 10,000 channels: ${commands}`);
  expect(commands).toBeLessThanOrEqual(TOTALS_COST);
  expect(commands).toBeGreaterThanOrEqual(2);
});

test('RELAY_METRICS_ACCOUNTS adds a constant per channel of the listed accounts', async () => {
  const listed = await startApp(rq.redis, { ...env, RELAY_METRICS_ACCOUNTS: 'acct0' });
  try {
    await listed.relay.sweeper.stop();
    await listed.relay.gauges.stop();
    const { commands, text } = await commandsPerScrape(listed);
    expect(
      sample(text, 'relayq_channel_messages', {
        account: 'acct0',
        channel: 'ch0',
        state: 'queued',
      }),
    ).toBe(1);
    expect(
      sample(text, 'relayq_channel_messages', {
        account: 'acct0',
        channel: 'ch99',
        state: 'queued',
      }),
    ).toBe(0);
    expect(text).not.toContain('account="acct1"');
    // the totals, HKEYS of the account's channels, one channel_stats (about 12 commands) per channel
    console.log(`commands per scrape, 100 listed channels: ${commands}`);
    expect(commands).toBeLessThanOrEqual(
      TOTALS_COST + PER_ACCOUNT_COST + PER_CHANNEL_COST * CHANNELS,
    );
    expect(commands).toBeGreaterThan(CHANNELS);
  } finally {
    await listed.close();
  }
});
