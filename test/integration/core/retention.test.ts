/** Retention: messages older than the plan's retention are removed, without any pull. */
import { accountWithToken, eventually, startApp, type TestApp } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { relay } from './relay';

let redis: TestRedis;
let app: TestApp;

beforeAll(async () => {
  redis = await startRedis();
  app = await startApp(redis, { RELAY_PLANS: '{"free":{"retention_seconds":2}}' });
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});

test('queued, delayed and in-flight messages are removed when retention ends, with their storage', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const client = relay(app, auth);
  await client.sendOk('orders', { body: 'queued' });
  await client.sendOk('orders', { body: 'delayed', delay_seconds: 60 });
  await client.sendOk('orders', { body: 'leased' });
  const leased = await client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 60_000 });
  expect(leased.messages.map((m) => m.body)).toEqual(['queued']);
  expect(leased.message_backlog_count).toBe(3);
  const account = async () => (await app.relay.store.accounts.get('acme'))!;
  expect((await account()).usage.storage_bytes).toBeGreaterThan(0);

  // Gone within the retention (2 s) plus sweeper slack, with no pull in between.
  await eventually(async () => (await account()).usage.storage_bytes === 0, 8000, 100);
  expect(await redis.keys('rq:{acme}:c:orders:m')).toEqual([]);
  expect(await redis.keys('rq:{acme}:c:orders:q')).toEqual([]);
  expect(await redis.keys('rq:{acme}:c:orders:f')).toEqual([]);
  expect(await client.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  // The lease of the removed message no longer acknowledges anything.
  expect(await client.ackOk('orders', [leased.messages[0].lease_id])).toBe(0);
});

test('a message inside its retention is kept', async () => {
  const { auth } = await accountWithToken(app, 'globex');
  const client = relay(app, auth);
  await client.sendOk('orders', { body: 1 });
  const pulled = await client.pullOk('orders');
  expect(pulled.messages.map((m) => m.body)).toEqual([1]);
});
