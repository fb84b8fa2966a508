/** Plan limits on sends: storage and channel count, 403, all or nothing. */
import { expectError } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({
  env: { RELAY_PLANS: '{"free":{"max_storage_bytes":100,"max_channels":2}}' },
  account: 'acme',
});

const usage = async () => (await rq.app.relay.store.accounts.get('acme'))!.usage;

test('storage: a send that would pass the limit is a 403 and stores nothing; ack frees space', async () => {
  // "x".repeat(46) -> 48 bytes + {} = 50 bytes per message
  const body = 'x'.repeat(46);
  await rq.client.sendOk('orders', { body });
  await rq.client.sendOk('orders', { body });
  expect((await usage()).storage_bytes).toBe(100);
  expectError(
    await rq.client.send('orders', { body: 1 }),
    403,
    'storage limit reached: the plan allows at most 100 bytes of stored messages',
  );
  const pulled = await rq.client.pullOk('orders');
  expect(pulled.message_backlog_count).toBe(2);
  await rq.client.ackOk('orders', [pulled.messages[0].lease_id]);
  expect((await usage()).storage_bytes).toBe(50);
  // a batch is all or nothing: 2 x 50 would pass the limit
  expectError(
    await rq.client.batch('orders', { messages: [{ body }, { body }] }),
    403,
    'storage limit reached: the plan allows at most 100 bytes of stored messages',
  );
  expect((await usage()).storage_bytes).toBe(50);
  expect((await rq.client.batch('orders', { messages: [{ body }] })).status).toBe(200);
});

test('channels: a send that would create a channel past the limit is a 403', async () => {
  await rq.client.sendOk('a', { body: 1 });
  await rq.client.sendOk('b', { body: 1 });
  expectError(
    await rq.client.send('c', { body: 1 }),
    403,
    'channel limit reached: the plan allows at most 2 channels',
  );
  expect((await usage()).channels).toBe(2);
  // existing channels still take sends; pulling an unknown channel creates nothing
  expect((await rq.client.send('a', { body: 2 })).status).toBe(200);
  expect(await rq.client.pullOk('c')).toEqual({ message_backlog_count: 0, messages: [] });
  expect((await usage()).channels).toBe(2);
});
