/**
 * The service-wide backlog gauges on /metrics: exact after sends, pulls, acks,
 * expiry, dead-lettering and purge done on two pods, and per-channel series
 * only for RELAY_METRICS_ACCOUNTS.
 */
import {
  ADMIN_TOKEN,
  accountWithToken,
  eventually,
  startApp,
  type TestApp,
} from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { defineScripts } from '../../../src/store/scripts';
import { systemKeys } from '../../../src/store/keys';
import { relay } from '../../helpers/relayClient';
import { sample } from './serve';

const env = {
  RELAY_GAUGE_INTERVAL_MS: '50',
  // a destination on a closed local port, whose messages end dead in their channel
  RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true',
  RELAY_METRICS_ACCOUNTS: 'acme',
  RELAY_PLANS: '{"brief":{"max_storage_bytes":1000000,"max_channels":10,"retention_seconds":1}}',
};

const rq = useRelay({ pods: 2, env, flush: false });

interface Gauges {
  queued: number;
  delayed: number;
  in_flight: number;
  dead_letter: number;
  storage_bytes: number;
  accounts: number;
  channels: number;
}

async function gauges(app: TestApp): Promise<Gauges & { text: string }> {
  const text = await app.relay.metrics.registry.metrics();
  const get = (name: string, labels: Record<string, string> = {}) => {
    const v = sample(text, name, labels);
    if (v === undefined) throw new Error(`${name} missing from /metrics`);
    return v;
  };
  return {
    queued: get('relayq_messages', { state: 'queued' }),
    delayed: get('relayq_messages', { state: 'delayed' }),
    in_flight: get('relayq_messages', { state: 'in_flight' }),
    dead_letter: get('relayq_dead_letter_messages'),
    storage_bytes: get('relayq_storage_bytes'),
    accounts: get('relayq_accounts'),
    channels: get('relayq_channels'),
    text,
  };
}

/** Waits until both pods' scrapes show exactly the expected gauges. */
async function expectGauges(expected: Gauges): Promise<void> {
  let last: unknown = null;
  try {
    await eventually(async () => {
      const [ga, gb] = await Promise.all([gauges(rq.a), gauges(rq.b)]);
      const { text: _a, ...sa } = ga;
      const { text: _b, ...sb } = gb;
      last = { a: sa, b: sb };
      const canon = (g: object) => JSON.stringify(Object.entries(g).sort());
      return canon(sa) === canon(expected) && canon(sb) === canon(expected);
    }, 8000);
  } catch {
    throw new Error(`gauges ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`);
  }
}

async function storedBytes(...accounts: string[]): Promise<number> {
  let total = 0;
  for (const id of accounts) {
    const res = await rq.a.http
      .get(`/v1/admin/accounts/${id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    total += res.body.result.usage.storage_bytes;
  }
  return total;
}

test('gauges follow sends, pulls, acks, dead-lettering, expiry and purge across two pods', async () => {
  await rq.redis.flush();
  const acme = await accountWithToken(rq.a, 'acme');
  const globex = await accountWithToken(rq.a, 'globex', { plan: 'brief' });
  const ca = relay(rq.a, acme.auth);
  const cb = relay(rq.b, acme.auth);
  const gb = relay(rq.b, globex.auth);
  const none = { queued: 0, delayed: 0, in_flight: 0, dead_letter: 0, storage_bytes: 0 };
  await expectGauges({ ...none, accounts: 2, channels: 0 });

  // sends on both pods: 3 available, 1 delayed
  await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
  await cb.sendOk('orders', { body: 3 });
  await cb.sendOk('orders', { body: 4, delay_seconds: 600 });
  const bytes4 = await storedBytes('acme');
  await expectGauges({
    ...none,
    queued: 3,
    delayed: 1,
    storage_bytes: bytes4,
    accounts: 2,
    channels: 1,
  });

  // pull 2 on pod b, ack 1 on pod a
  const pulled = await cb.pullOk('orders', { batch_size: 2, visibility_timeout_ms: 600000 });
  await expectGauges({
    ...none,
    queued: 1,
    delayed: 1,
    in_flight: 2,
    storage_bytes: bytes4,
    accounts: 2,
    channels: 1,
  });
  await ca.ackOk('orders', { lease_ids: [pulled.messages[0].lease_id] });
  const bytes3 = await storedBytes('acme');
  expect(bytes3).toBeLessThan(bytes4);
  await expectGauges({
    ...none,
    queued: 1,
    delayed: 1,
    in_flight: 1,
    storage_bytes: bytes3,
    accounts: 2,
    channels: 1,
  });

  // dead-lettering: one delivery allowed, the lease ends, the sweeper moves it
  await ca.configure('jobs', { max_attempts: 1, dead_letter_channel: 'jobs-dlq' });
  await ca.sendOk('jobs', { body: 'fails' });
  await cb.pullOk('jobs', { visibility_timeout_ms: 1000 });
  await eventually(async () => (await ca.channel('jobs-dlq')).body.result.queued === 1, 8000);
  const bytesDl = await storedBytes('acme');
  const deadLettered = {
    queued: 2,
    delayed: 1,
    in_flight: 1,
    dead_letter: 1,
    storage_bytes: bytesDl,
    accounts: 2,
    channels: 3,
  };
  await expectGauges(deadLettered);

  // expiry: globex keeps messages 1 s; the sweeper deletes them
  await gb.batchOk('brief', { messages: [{ body: 'a' }, { body: 'b' }] });
  await eventually(async () => (await storedBytes('globex')) === 0, 8000);
  // (globex's channel remains, empty)
  await expectGauges({ ...deadLettered, channels: 4 });

  // purge on pod b empties orders (queued, delayed and in flight)
  await cb.purge('orders');
  const left = await storedBytes('acme');
  await expectGauges({
    ...none,
    queued: 1,
    dead_letter: 1,
    storage_bytes: left,
    accounts: 2,
    channels: 4,
  });

  // the oldest message anywhere is the dead-lettered one
  const text = (await gauges(rq.a)).text;
  const age = sample(text, 'relayq_oldest_message_age_seconds')!;
  expect(age).toBeGreaterThan(0);
  expect(age).toBeLessThan(60);
  // acme keeps messages 3 days (free plan): the next deletion is about that far off
  const nextExpiry = sample(text, 'relayq_next_message_expiry_seconds')!;
  expect(nextExpiry).toBeGreaterThan(3 * 86400 - 120);
  expect(nextExpiry).toBeLessThanOrEqual(3 * 86400);
  expect(sample(text, 'relayq_plan_retention_seconds', { plan: 'brief' })).toBe(1);

  // per-channel series: acme's channels only
  expect(
    sample(text, 'relayq_channel_messages', {
      account: 'acme',
      channel: 'jobs-dlq',
      state: 'queued',
    }),
  ).toBe(1);
  expect(
    sample(text, 'relayq_channel_messages', {
      account: 'acme',
      channel: 'orders',
      state: 'queued',
    }),
  ).toBe(0);
  expect(
    sample(text, 'relayq_channel_oldest_message_age_seconds', {
      account: 'acme',
      channel: 'jobs-dlq',
    }),
  ).toBeGreaterThan(0);
  expect(text).not.toContain('account="globex"');

  // deleting an account takes its counts out
  const del = await rq.a.http
    .delete('/v1/admin/accounts/acme')
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(del.status).toBe(200);
  await expectGauges({ ...none, accounts: 1, channels: 1 });
  const after = (await gauges(rq.b)).text;
  expect(sample(after, 'relayq_oldest_message_age_seconds')).toBe(0);
  expect(after).toMatch(/^relayq_next_message_expiry_seconds \+Inf$/m);
});

test('a pod that starts later folds what is already stored (full pass)', async () => {
  await rq.redis.flush();
  const acme = await accountWithToken(rq.a, 'acme');
  await relay(rq.a, acme.auth).batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
  await eventually(async () => (await gauges(rq.a)).queued === 2, 8000);
  // Forget the folded totals, as if no pod had folded them: a fresh pod rebuilds them.
  await rq.a.redis.del('rq:{~sys}:gauges', 'rq:{~sys}:gauge_accounts', 'rq:{~sys}:gauge_oldest');
  const c = await startApp(rq.redis, env);
  try {
    await eventually(async () => (await gauges(c)).queued === 2, 8000);
    expect((await gauges(c)).channels).toBe(1);
  } finally {
    await c.close();
  }
});

test('under concurrent sends, pulls and acks on both pods the gauges settle on the exact totals', async () => {
  await rq.redis.flush();
  const accounts = ['acme', 'globex', 'initech'];
  const clients = [];
  for (const id of accounts) {
    const { auth } = await accountWithToken(rq.a, id);
    clients.push(relay(rq.a, auth), relay(rq.b, auth));
  }
  // 2 s of traffic: each worker sends, pulls (long leases: nothing changes by time after) and acks some
  const until = Date.now() + 2000;
  await Promise.all(
    clients.map(async (c, i) => {
      while (Date.now() < until) {
        const channel = `ch${i % 3}`;
        await c.batchOk(channel, { messages: [{ body: i }, { body: i + 1 }, { body: i + 2 }] });
        const pulled = await c.pullOk(channel, { batch_size: 2, visibility_timeout_ms: 600000 });
        if (pulled.messages.length > 0)
          await c.ackOk(channel, { lease_ids: [pulled.messages[0].lease_id] });
      }
    }),
  );
  // The truth, read through the store once the traffic has stopped.
  const want = { queued: 0, delayed: 0, in_flight: 0, storage_bytes: 0, channels: 0 };
  for (const id of accounts) {
    for (const c of await rq.a.relay.store.channels.list(id)) {
      want.queued += c.queued;
      want.delayed += c.delayed;
      want.in_flight += c.in_flight;
      want.storage_bytes += c.storage_bytes;
      want.channels += 1;
    }
  }
  expect(want.in_flight).toBeGreaterThan(0);
  await expectGauges({ ...want, dead_letter: 0, accounts: 3 });
});

test('folding is idempotent and ignores a snapshot older than the one folded', async () => {
  await rq.redis.flush();
  await rq.a.relay.gauges.stop();
  await rq.b.relay.gauges.stop();
  try {
    const scripts = defineScripts(rq.a.redis);
    const keys = [
      systemKeys.gauges,
      systemKeys.gaugeAccounts,
      systemKeys.gaugeOldest,
      systemKeys.gaugeExpiry,
    ];
    const fold = (version: number, queued: number) =>
      scripts.gauges_fold(...keys, 'acme', version, queued, 0, 0, 0, queued * 10, 1, 1000, 2000);
    const totals = async () => rq.a.redis.hgetall(systemKeys.gauges);
    expect(await fold(200, 5)).toBe(1);
    expect(await fold(200, 5)).toBe(0); // the same snapshot again
    expect(await fold(100, 9)).toBe(0); // an older one, arriving late
    expect(await totals()).toMatchObject({ queued: '5', storage_bytes: '50', channels: '1' });
    expect(await fold(300, 2)).toBe(1); // rq.a newer one: the totals move by the difference
    expect(await totals()).toMatchObject({ queued: '2', storage_bytes: '20', channels: '1' });
    expect(await rq.a.redis.zscore(systemKeys.gaugeOldest, 'acme')).toBe('1000');
  } finally {
    rq.a.relay.gauges.start();
    rq.b.relay.gauges.start();
  }
});

test('relayq_message_groups counts ready and blocked groups (per channel for RELAY_METRICS_ACCOUNTS)', async () => {
  await rq.redis.flush();
  const acme = await accountWithToken(rq.a, 'acme');
  const ca = relay(rq.a, acme.auth);
  await ca.batchOk('orders', {
    messages: [
      { body: 1, group_id: 'a' },
      { body: 2, group_id: 'a' },
      { body: 3, group_id: 'b' },
      { body: 4, group_id: 'c' },
    ],
  });
  await ca.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 600000 });
  const want = { ready: 2, blocked: 1 };
  let last: unknown = null;
  await eventually(async () => {
    const text = (await gauges(rq.b)).text;
    const got = {
      ready: sample(text, 'relayq_message_groups', { state: 'ready' }),
      blocked: sample(text, 'relayq_message_groups', { state: 'blocked' }),
      channelReady: sample(text, 'relayq_channel_message_groups', {
        account: 'acme',
        channel: 'orders',
        state: 'ready',
      }),
      channelBlocked: sample(text, 'relayq_channel_message_groups', {
        account: 'acme',
        channel: 'orders',
        state: 'blocked',
      }),
    };
    last = got;
    return (
      JSON.stringify(got) ===
      JSON.stringify({ ...want, channelReady: want.ready, channelBlocked: want.blocked })
    );
  }, 8000).catch(() => {
    throw new Error(`groups gauges ${JSON.stringify(last)}`);
  });
});

test('messages a push destination gave up on (dead in their channel) are not counted as queued', async () => {
  const { auth } = await accountWithToken(rq.a, 'deadco');
  const ca = relay(rq.a, auth);
  const created = await rq.a.http
    .post('/v1/relay/channels/hooks/destinations')
    .set('Authorization', auth)
    // port 9 on loopback: nothing listens, each attempt fails at once
    .send({ url: 'http://127.0.0.1:9/', retry: { schedule_seconds: [0], max_attempts: 1 } });
  expect(created.status).toBe(200);
  await ca.sendOk('hooks', { body: 1 });
  await ca.sendOk('hooks', { body: 2 });
  await eventually(async () => (await ca.channel('hooks')).body.result.dead_count === 2, 10_000);
  await rq.a.http
    .patch(`/v1/relay/channels/hooks/destinations/${created.body.result.id}`)
    .set('Authorization', auth)
    .send({ paused: true });
  // the truth, read through the store: a channel's queued leaves its dead messages out
  let queued = 0;
  for (const id of await rq.a.redis.smembers(systemKeys.accounts)) {
    for (const c of await rq.a.relay.store.channels.list(id)) queued += c.queued;
  }
  const hooks = (await ca.channel('hooks')).body.result;
  expect([hooks.queued, hooks.dead_count]).toEqual([0, 2]);
  await eventually(async () => (await gauges(rq.b)).queued === queued, 8000).catch(async () => {
    throw new Error(`queued gauge ${(await gauges(rq.b)).queued}, expected ${queued}`);
  });
});
