/** Redis unreachable: a 503 envelope at once, and service again when Redis is back. */
import { accountWithToken, eventually, startApp, type TestApp } from '../../helpers/app';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';
import { expectError, relay } from './relay';

let redis: SingleTestRedis;
let app: TestApp;

beforeAll(async () => {
  // pause/resume needs a single Redis
  redis = await startSingleRedis();
  app = await startApp(redis);
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});

test('send, pull and ack answer 503 while Redis is down, then work again', async () => {
  const client = relay(app, (await accountWithToken(app, 'acme')).auth);
  await client.sendOk('orders', { body: 'before' });
  await redis.pause();
  try {
    const message = 'the queue store is unavailable; the request had no effect and may be retried';
    expectError(await client.send('orders', { body: 'during' }), 503, message);
    expectError(await client.pull('orders'), 503, message);
    expectError(await client.ack('orders', []), 503, message);
  } finally {
    await redis.resume();
  }
  // the test Redis comes back empty: make the account again, then everything works
  let auth = '';
  await eventually(
    async () => {
      try {
        auth = (await accountWithToken(app, 'acme')).auth;
        return true;
      } catch {
        return false;
      }
    },
    10_000,
    200,
  );
  const after = relay(app, auth);
  await after.sendOk('orders', { body: 'after' });
  expect((await after.pullOk('orders')).messages.map((m) => m.body)).toEqual(['after']);
});
