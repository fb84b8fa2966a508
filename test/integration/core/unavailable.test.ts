/**
 * Redis unreachable: a 503 envelope at once, and service again when Redis is back. The 503
 * says "had no effect" only when nothing reached Redis; a command that was sent and not
 * answered "may or may not have taken effect" (a frozen Redis runs it when it wakes).
 */
import { UNANSWERED_MESSAGE, UNAVAILABLE_MESSAGE } from '../../../src/errors';
import { accountWithToken, eventually } from '../../helpers/app';
import { startSingleRedis } from '../../helpers/redis';
import { expectError, relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

// pause/resume needs a single Redis
const rq = useRelay({
  redis: startSingleRedis,
  flush: false,
  // no background command may meet the frozen Redis before the request does
  env: {
    RELAY_SWEEP_INTERVAL_MS: '60000',
    RELAY_GAUGE_INTERVAL_MS: '60000',
    RELAY_DUE_REPAIR_PASS_MS: '60000',
    RELAY_REPLAY_TICK_MS: '60000',
  },
});

test('send, pull and ack answer 503 while Redis is down, then work again', async () => {
  const client = relay(rq.app, (await accountWithToken(rq.app, 'acme')).auth);
  await client.sendOk('orders', { body: 'before' });
  await rq.redis.pause();
  try {
    const message = UNAVAILABLE_MESSAGE;
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

test('a send that Redis did not answer in time is not said to have had no effect: it may have been stored (and was)', async () => {
  const client = relay(rq.app, (await accountWithToken(rq.app, 'frozen')).auth);
  await client.sendOk('orders', { body: 'before' });
  const pid = Number(/process_id:(\d+)/.exec(await rq.redis.client.info('server'))![1]);
  process.kill(pid, 'SIGSTOP');
  try {
    // sent, then the 2 s command timeout: the outcome is unknown
    expectError(await client.send('orders', { body: 'sent' }), 503, UNANSWERED_MESSAGE);
    // the pod now holds Redis unreachable: the next send is refused before it is sent
    expectError(await client.send('orders', { body: 'refused' }), 503, UNAVAILABLE_MESSAGE);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  let bodies: unknown[] = [];
  await eventually(
    async () => {
      const pulled = await client.pull('orders', { batch_size: 10 });
      if (pulled.status !== 200) return false;
      bodies = pulled.body.result.messages.map((m: { body: unknown }) => m.body);
      return true;
    },
    10_000,
    200,
  );
  // Redis ran the unanswered send when it woke; the refused one never reached it
  expect(bodies).toEqual(['before', 'sent']);
});
