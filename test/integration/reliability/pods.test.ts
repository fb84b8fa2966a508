/**
 * Pods come and go: a pod killed in the middle of pulls loses nothing (its
 * leases end and the messages go to another pod), and scripts are reloaded
 * after SCRIPT FLUSH (NOSCRIPT falls back to EVAL).
 */
import { accountWithToken, eventually, startApp, type TestApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

jest.setTimeout(30_000);

// declared first, so that it runs before useRelay() closes the Redis
afterAll(() => podA?.close());
// rq.app is pod B; pod A comes and goes in the tests
const rq = useRelay();
let podA: TestApp | null = null;

const base = '/v1/relay/channels/jobs/messages';
type Pulled = { id: string; lease_id: string; attempts: number; body: unknown };

test('a pod killed in the middle of pulls: its leased messages come back to another pod after their timeout', async () => {
  podA = await startApp(rq.redis);
  const { auth } = await accountWithToken(rq.app, 'acme');
  const sent = await rq.app.http
    .post(`${base}/batch`)
    .set('Authorization', auth)
    .send({ messages: [1, 2, 3, 4, 5].map((n) => ({ body: n })) });
  expect(sent.status).toBe(200);
  const ids: string[] = sent.body.result.ids;

  // Pod A leases three, starts a long poll on another channel, then dies abruptly.
  const leased = await podA.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 3, visibility_timeout_ms: 1000 });
  expect(leased.body.result.messages.map((m: Pulled) => m.id)).toEqual(ids.slice(0, 3));
  const leasedAt = Date.now();
  const waiting = podA.http
    .post('/v1/relay/channels/other/messages/pull')
    .set('Authorization', auth)
    .send({ wait_ms: 3000 })
    .then(
      (r) => r.status,
      () => 'connection lost',
    );
  await podA.close();
  podA = null;

  // Pod B is unaffected: the two unleased messages at once, the leased ones hidden.
  const now = await rq.app.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ visibility_timeout_ms: 60_000 });
  expect(now.status).toBe(200);
  expect(now.body.result.messages.map((m: Pulled) => [m.id, m.attempts])).toEqual([
    [ids[3], 1],
    [ids[4], 1],
  ]);
  expect(now.body.result.message_backlog_count).toBe(5);

  // After the 1 s visibility timeout the three come back, second attempt, in order.
  let back: Pulled[] = [];
  await eventually(
    async () => {
      const r = await rq.app.http
        .post(`${base}/pull`)
        .set('Authorization', auth)
        .send({ visibility_timeout_ms: 60_000 });
      back = back.concat(r.body.result.messages);
      return back.length >= 3;
    },
    4000,
    100,
  );
  expect(Date.now() - leasedAt).toBeGreaterThanOrEqual(900);
  expect(back.map((m) => [m.id, m.attempts, m.body])).toEqual([
    [ids[0], 2, 1],
    [ids[1], 2, 2],
    [ids[2], 2, 3],
  ]);
  // The dead pod's old leases are void; B's leases ack all five.
  const stale = await rq.app.http
    .post(`${base}/ack`)
    .set('Authorization', auth)
    .send({ lease_ids: leased.body.result.messages.map((m: Pulled) => m.lease_id) });
  expect(stale.body.result).toEqual({ acked_count: 0 });
  const acked = await rq.app.http
    .post(`${base}/ack`)
    .set('Authorization', auth)
    .send({
      lease_ids: [...now.body.result.messages, ...back].map((m: Pulled) => m.lease_id),
    });
  expect(acked.body.result).toEqual({ acked_count: 5 });
  // The long poll on the dead pod ended (answered or cut), it did not hang the test.
  expect(['connection lost', 200, 503]).toContain(await waiting);
});

test('scripts are reloaded after SCRIPT FLUSH: send, pull and ack still answer 200', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  await rq.redis.eachMaster((node) => node.script('FLUSH'));
  const sent = await rq.app.http.post(base).set('Authorization', auth).send({ body: 'x' });
  expect(sent.status).toBe(200);
  await rq.redis.eachMaster((node) => node.script('FLUSH'));
  const pulled = await rq.app.http.post(`${base}/pull`).set('Authorization', auth).send({});
  expect(pulled.status).toBe(200);
  expect(pulled.body.result.messages.map((m: Pulled) => m.id)).toEqual([sent.body.result.id]);
  await rq.redis.eachMaster((node) => node.script('FLUSH'));
  const acked = await rq.app.http
    .post(`${base}/ack`)
    .set('Authorization', auth)
    .send({ lease_ids: [pulled.body.result.messages[0].lease_id] });
  expect(acked.body.result).toEqual({ acked_count: 1 });
  // The scripts are cached again after the fallback.
  const cached = await rq.redis.eachMaster(async (node) => {
    const info = await node.info('memory');
    return Number(/number_of_cached_scripts:(\d+)/.exec(info)?.[1] ?? 0);
  });
  expect(cached.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
});
