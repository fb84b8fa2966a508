/** Redis unreachable: a 503 envelope at once, and service again when Redis is back. */
import { accountWithToken, eventually } from '../../helpers/app';
import { startSingleRedis } from '../../helpers/redis';
import { expectError, relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

// pause/resume needs a single Redis
const rq = useRelay({ redis: startSingleRedis, flush: false });

test('send, pull and ack answer 503 while Redis is down, then work again', async () => {
  const client = relay(rq.app, (await accountWithToken(rq.app, 'acme')).auth);
  await client.sendOk('orders', { body: 'before' });
  await rq.redis.pause();
  try {
    const message = 'the queue store is unavailable; the request had no effect and may be retried';
    expectError(await client.send('orders', { body: 'during' }), 503, message);
    expectError(await client.pull('orders'), 503, message);
    expectError(await client.ack('orders', []), 503, message);
  } finally {
    await rq.redis.resume();
  }
  // the test Redis comes back empty: make the account again, then everything works
  let auth = '';
  await eventually(
    async () => {
      try {
        auth = (await accountWithToken(rq.app, 'acme')).auth;
        return true;
      } catch {
        return false;
      }
    },
    10_000,
    200,
  );
  const after = relay(rq.app, auth);
  await after.sendOk('orders', { body: 'after' });
  expect((await after.pullOk('orders')).messages.map((m) => m.body)).toEqual(['after']);
});
