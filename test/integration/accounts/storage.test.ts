/**
 * Storage accounting: every way a message leaves frees its bytes exactly
 * (ack, purge, channel delete, retention expiry, discard), dead-lettered
 * messages still count, and retention works on channels nobody touches.
 */
import { accountWithToken, ADMIN_TOKEN, eventually, sleep, type TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';

const PLANS = JSON.stringify({
  short: { max_storage_bytes: 100000, max_channels: 10, retention_seconds: 2 },
  medium: { max_storage_bytes: 100000, max_channels: 10, retention_seconds: 4 },
  long: { max_storage_bytes: 100000, max_channels: 10, retention_seconds: 3600 },
});

const rq = useRelay({ pods: 2, env: { RELAY_PLANS: PLANS } });
let redis: TestRedis;
let a: TestApp;
let b: TestApp;
beforeAll(() => ({ redis, a, b } = rq));

async function usage(account = 'acme') {
  const res = await a.http
    .get(`/v1/admin/accounts/${account}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return res.body.result.usage as { storage_bytes: number; channels: number };
}

async function channel(auth: string, id: string) {
  const res = await b.http.get(`/v1/relay/channels/${id}`).set('Authorization', auth);
  return res.body.result;
}

/** Sends n messages of exactly 100 bytes each (body JSON 98 + metadata {} 2). */
async function fill(auth: string, ch: string, n: number, extra: object = {}) {
  const res = await a.http
    .post(`/v1/relay/channels/${ch}/messages/batch`)
    .set('Authorization', auth)
    .send({ messages: Array.from({ length: n }, () => ({ body: 'x'.repeat(96) })), ...extra });
  expect(res.status).toBe(200);
  return res.body.result.ids as string[];
}

async function pull(auth: string, ch: string, body: object = {}) {
  const res = await b.http
    .post(`/v1/relay/channels/${ch}/messages/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 100, ...body });
  expect(res.status).toBe(200);
  return res.body.result.messages as { lease_id: string; id: string; attempts: number }[];
}

test('acked messages free their storage, back to exactly 0', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'long' });
  await fill(auth, 'orders', 5);
  expect(await usage()).toEqual({ storage_bytes: 500, channels: 1 });
  const leased = await pull(auth, 'orders');
  expect((await channel(auth, 'orders')).storage_bytes).toBe(500);
  const ack = await a.http
    .post('/v1/relay/channels/orders/messages/ack')
    .set('Authorization', auth)
    .send({ lease_ids: leased.map((m) => m.lease_id) });
  expect(ack.body.result).toEqual({ acked_count: 5 });
  expect(await usage()).toEqual({ storage_bytes: 0, channels: 1 });
  expect((await channel(auth, 'orders')).storage_bytes).toBe(0);
});

test('purge frees queued, delayed and in-flight messages and keeps the channel', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'long' });
  await fill(auth, 'orders', 3);
  await fill(auth, 'orders', 2, { delay_seconds: 600 });
  await pull(auth, 'orders', { batch_size: 1 });
  const before = await channel(auth, 'orders');
  expect([before.queued, before.delayed, before.in_flight]).toEqual([2, 2, 1]);
  const res = await a.http
    .post('/v1/relay/channels/orders/messages/purge')
    .set('Authorization', auth)
    .send({});
  expect(res.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { purged_count: 5 },
  });
  expect(await usage()).toEqual({ storage_bytes: 0, channels: 1 });
  const after = await channel(auth, 'orders');
  expect(after).toMatchObject({ queued: 0, delayed: 0, in_flight: 0, storage_bytes: 0 });
  expect(after.oldest_message_ms).toBeNull();
});

test('deleting a channel frees its storage and its slot', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'long' });
  await fill(auth, 'orders', 4);
  await fill(auth, 'alerts', 1);
  await pull(auth, 'orders', { batch_size: 2 });
  const res = await a.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(res.body.result).toEqual({ deleted_count: 4 });
  expect(await usage()).toEqual({ storage_bytes: 100, channels: 1 });
  expect(await redis.keys('rq:\\{acme\\}:c:orders:*')).toEqual([]);
});

test('retention removes messages of every state on a channel nobody touches, with their storage', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'short' });
  await fill(auth, 'orders', 2);
  await fill(auth, 'orders', 1, { delay_seconds: 600 });
  await pull(auth, 'orders', { batch_size: 1, visibility_timeout_ms: 600000 });
  await fill(auth, 'dead', 1);
  expect(await usage()).toEqual({ storage_bytes: 400, channels: 2 });
  // Nobody calls anything on these channels from here on; only the sweepers work.
  await eventually(async () => (await usage()).storage_bytes === 0, 8000, 100);
  expect(await usage()).toEqual({ storage_bytes: 0, channels: 2 });
  const list = await a.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.body.result.channels).toEqual([
    {
      id: 'dead',
      queued: 0,
      delayed: 0,
      in_flight: 0,
      groups: 0,
      blocked_groups: 0,
      dead_count: 0,
      storage_bytes: 0,
      oldest_message_ms: null,
    },
    {
      id: 'orders',
      queued: 0,
      delayed: 0,
      in_flight: 0,
      groups: 0,
      blocked_groups: 0,
      dead_count: 0,
      storage_bytes: 0,
      oldest_message_ms: null,
    },
  ]);
  expect(await redis.keys('rq:\\{acme\\}:c:*:m')).toEqual([]);
});

test('dead-lettered messages still count; discarded ones are freed', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'long' });
  const put = (ch: string, body: object) =>
    a.http.put(`/v1/relay/channels/${ch}`).set('Authorization', auth).send(body);
  expect((await put('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' })).status).toBe(
    200,
  );
  expect((await put('events', { max_attempts: 1 })).status).toBe(200);
  await fill(auth, 'orders', 2);
  await fill(auth, 'events', 3);
  expect((await pull(auth, 'orders', { visibility_timeout_ms: 1000 })).length).toBe(2);
  expect((await pull(auth, 'events', { visibility_timeout_ms: 1000 })).length).toBe(3);
  // The sweeper ends the leases: orders' messages move to the DLQ, events' are discarded.
  await eventually(async () => (await channel(auth, 'orders-dlq')).queued === 2, 6000, 100);
  await eventually(async () => (await usage()).storage_bytes === 200, 6000, 100);
  expect(await usage()).toEqual({ storage_bytes: 200, channels: 3 });
  expect((await channel(auth, 'orders')).storage_bytes).toBe(0);
  expect((await channel(auth, 'events')).storage_bytes).toBe(0);
  expect((await channel(auth, 'orders-dlq')).storage_bytes).toBe(200);

  const dead = await pull(auth, 'orders-dlq');
  await a.http
    .post('/v1/relay/channels/orders-dlq/messages/ack')
    .set('Authorization', auth)
    .send({ lease_ids: dead.map((m) => m.lease_id) });
  expect(await usage()).toEqual({ storage_bytes: 0, channels: 3 });
});

test('a plan change keeps the retention existing messages were sent with', async () => {
  const { auth } = await accountWithToken(a, 'acme', { plan: 'short' });
  const patch = (plan: string) =>
    a.http
      .patch('/v1/admin/accounts/acme')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ plan });
  const [sentShort] = await fill(auth, 'orders', 1);
  expect((await patch('long')).status).toBe(200);
  const [sentLong] = await fill(auth, 'orders', 1);
  expect((await patch('short')).status).toBe(200);
  // After the short retention, the message sent under it is gone; the other stays.
  await sleep(2000);
  await eventually(async () => (await usage()).storage_bytes === 100, 6000, 100);
  await sleep(300);
  const left = await pull(auth, 'orders');
  expect(left.map((m) => m.id)).toEqual([sentLong]);
  expect(left.map((m) => m.id)).not.toContain(sentShort);
  expect(await usage()).toEqual({ storage_bytes: 100, channels: 1 });
});

test('dead-lettered messages keep their expiry and are removed by retention too', async () => {
  // retention 4 s: dead-lettered after about 1 s, removed from the dead-letter channel at 4 s
  const { auth } = await accountWithToken(a, 'acme', { plan: 'medium' });
  await a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ max_attempts: 1, dead_letter_channel: 'orders-dlq' });
  await fill(auth, 'orders', 2);
  expect((await pull(auth, 'orders', { visibility_timeout_ms: 1000 })).length).toBe(2);
  await eventually(async () => (await channel(auth, 'orders-dlq')).storage_bytes === 200, 6000, 50);
  await eventually(async () => (await usage()).storage_bytes === 0, 8000, 100);
  expect(await channel(auth, 'orders-dlq')).toMatchObject({
    queued: 0,
    storage_bytes: 0,
    oldest_message_ms: null,
  });
});
