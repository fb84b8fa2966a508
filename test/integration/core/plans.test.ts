/** Plan limits on sends: storage and channel count, 403, all or nothing. */
import { accountWithToken, startApp, type TestApp } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { expectError, relay } from './relay';

let redis: TestRedis;
let app: TestApp;
let client: ReturnType<typeof relay>;

beforeAll(async () => {
  redis = await startRedis();
  app = await startApp(redis, {
    RELAY_PLANS: '{"free":{"max_storage_bytes":100,"max_channels":2}}',
  });
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});
beforeEach(async () => {
  await redis.flush();
  client = relay(app, (await accountWithToken(app, 'acme')).auth);
});

const usage = async () => (await app.relay.store.accounts.get('acme'))!.usage;

test('storage: a send that would pass the limit is a 403 and stores nothing; ack frees space', async () => {
  // "x".repeat(46) -> 48 bytes + {} = 50 bytes per message
  const body = 'x'.repeat(46);
  await client.sendOk('orders', { body });
  await client.sendOk('orders', { body });
  expect((await usage()).storage_bytes).toBe(100);
  expectError(
    await client.send('orders', { body: 1 }),
    403,
    'storage limit reached: the plan allows at most 100 bytes of stored messages',
  );
  const pulled = await client.pullOk('orders');
  expect(pulled.message_backlog_count).toBe(2);
  await client.ackOk('orders', [pulled.messages[0].lease_id]);
  expect((await usage()).storage_bytes).toBe(50);
  // a batch is all or nothing: 2 x 50 would pass the limit
  expectError(
    await client.batch('orders', { messages: [{ body }, { body }] }),
    403,
    'storage limit reached: the plan allows at most 100 bytes of stored messages',
  );
  expect((await usage()).storage_bytes).toBe(50);
  expect((await client.batch('orders', { messages: [{ body }] })).status).toBe(200);
});

test('channels: a send that would create a channel past the limit is a 403', async () => {
  await client.sendOk('a', { body: 1 });
  await client.sendOk('b', { body: 1 });
  expectError(
    await client.send('c', { body: 1 }),
    403,
    'channel limit reached: the plan allows at most 2 channels',
  );
  expect((await usage()).channels).toBe(2);
  // existing channels still take sends; pulling an unknown channel creates nothing
  expect((await client.send('a', { body: 2 })).status).toBe(200);
  expect(await client.pullOk('c')).toEqual({ message_backlog_count: 0, messages: [] });
  expect((await usage()).channels).toBe(2);
});
