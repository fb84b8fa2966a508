/** Retention: messages older than the plan's retention are removed, without any pull. */
import { accountWithToken, eventually } from '../../helpers/app';
import { relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ env: { RELAY_PLANS: '{"free":{"retention_seconds":2}}' }, flush: false });

test('queued, delayed and in-flight messages are removed when retention ends, with their storage', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  const client = relay(rq.app, auth);
  await client.sendOk('orders', { body: 'queued' });
  await client.sendOk('orders', { body: 'delayed', delay_seconds: 60 });
  await client.sendOk('orders', { body: 'leased' });
  const leased = await client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 60_000 });
  expect(leased.messages.map((m) => m.body)).toEqual(['queued']);
  expect(leased.message_backlog_count).toBe(3);
  const account = async () => (await rq.app.relay.store.accounts.get('acme'))!;
  expect((await account()).usage.storage_bytes).toBeGreaterThan(0);

  // Gone within the retention (2 s) plus sweeper slack, with no pull in between.
  await eventually(async () => (await account()).usage.storage_bytes === 0, 8000, 100);
  expect(await rq.redis.keys('rq:{acme}:c:orders:m')).toEqual([]);
  expect(await rq.redis.keys('rq:{acme}:c:orders:q')).toEqual([]);
  expect(await rq.redis.keys('rq:{acme}:c:orders:f')).toEqual([]);
  expect(await client.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  // The lease of the removed message no longer acknowledges anything.
  expect(await client.ackOk('orders', [leased.messages[0].lease_id])).toBe(0);
});

test('a message inside its retention is kept', async () => {
  const { auth } = await accountWithToken(rq.app, 'globex');
  const client = relay(rq.app, auth);
  await client.sendOk('orders', { body: 1 });
  const pulled = await client.pullOk('orders');
  expect(pulled.messages.map((m) => m.body)).toEqual([1]);
});
