/**
 * Calls that leave together (src/store/writeBatch.ts; docs/design.md, "The request path"):
 * the script calls a pod makes in one turn of its event loop reach Redis in one socket
 * write, which Redis reads at once (its total_reads_processed counts reads), while each
 * call keeps its own reply and error.
 */
import { accountWithToken, startApp, type TestApp } from '../../helpers/app';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';
import { headerCaller } from '../../../src/auth/credential';
import { newMessage } from '../../../src/relay';
import { channelKeys } from '../../../src/store/keys';
import type { Caller } from '../../../src/types';

let redis: SingleTestRedis;
let app: TestApp;
let caller: Caller;

beforeAll(async () => {
  redis = await startSingleRedis();
  // no background work on the pod while reads are counted
  app = await startApp(redis, {
    RELAY_SWEEP_INTERVAL_MS: '60000',
    RELAY_GAUGE_INTERVAL_MS: '60000',
    RELAY_DUE_REPAIR_PASS_MS: '60000',
    RELAY_REPLAY_TICK_MS: '60000',
  });
  const { auth } = await accountWithToken(app, 'acme');
  caller = headerCaller(auth);
});
afterAll(async () => {
  await app?.close();
  await redis?.stop();
});

/** Reads Redis has processed from all its clients so far (our INFO included). */
async function readsProcessed(): Promise<number> {
  const info = await redis.client.info('stats');
  return Number(/total_reads_processed:(\d+)/.exec(info)![1]);
}

const send = (body: unknown) => app.relay.relay.send(caller, 'orders', [newMessage({ body })]);

test('sends made in one turn reach Redis in a few reads, each with its own answer', async () => {
  await send('warm-up'); // the script's first EVAL
  const before = await readsProcessed();
  const sends = Array.from({ length: 100 }, (_, i) => send({ n: i }));
  const answers = await Promise.all(sends);
  const reads = (await readsProcessed()) - before;
  // 100 calls and one INFO, and the announcements a send may leave: in one write, Redis
  // reads them at once (4-5 reads measured); sent one write each, Redis reads them as they
  // come (25 or more measured on a loaded machine, more on a quiet one)
  expect(reads).toBeLessThanOrEqual(10);
  const ids = answers.map((a) => a.ids[0]);
  expect(new Set(ids).size).toBe(100);
  // every one stored: the warm-up and the 100
  expect(await redis.client.zcard(channelKeys('acme', 'orders').queue)).toBe(101);
});

test("one call's error does not touch the others of its batch", async () => {
  const bad: Caller = { ...caller, proof: 'secret:' + '0'.repeat(64) };
  const results = await Promise.allSettled([
    send('a'),
    app.relay.relay.send(bad, 'orders', [newMessage({ body: 'refused' })]),
    send('b'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
});
