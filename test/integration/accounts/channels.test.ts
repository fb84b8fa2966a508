/** Channel list, get, configure, purge and delete (docs/api/channels.md). */
import {
  DEFAULT_CHANNEL_CONFIG,
  accountWithToken,
  eventually,
  type TestApp,
} from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay();
let redis: TestRedis;
let app: TestApp;
beforeAll(() => ({ redis, app } = rq));

const send = (auth: string, ch: string, body: object) =>
  app.http.post(`/v1/relay/channels/${ch}/messages`).set('Authorization', auth).send(body);

const notFound = (message: string) => ({
  success: false,
  errors: [{ code: 404, message }],
  messages: [],
  result: null,
});

test('list and get show exact counts, storage, the oldest message and the config', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const first = await send(auth, 'orders', { body: 'a' }); // 3 + 2 bytes
  await send(auth, 'orders', { body: 'bb', metadata: { k: 1 } }); // 4 + 7 bytes
  await send(auth, 'orders', { body: 1, delay_seconds: 600 }); // 1 + 2 bytes
  await send(auth, 'alerts', { body: null }); // 4 + 2 bytes
  const pulled = await app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({ batch_size: 1 });
  const oldest = pulled.body.result.messages[0];
  expect(oldest.id).toBe(first.body.result.id);

  const list = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.status).toBe(200);
  expect(list.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: {
      channels: [
        {
          id: 'alerts',
          queued: 1,
          delayed: 0,
          in_flight: 0,
          groups: 0,
          blocked_groups: 0,
          dead_count: 0,
          storage_bytes: 6,
          oldest_message_ms: expect.any(Number),
        },
        {
          id: 'orders',
          queued: 1,
          delayed: 1,
          in_flight: 1,
          groups: 0,
          blocked_groups: 0,
          dead_count: 0,
          storage_bytes: 19,
          oldest_message_ms: oldest.timestamp_ms,
        },
      ],
    },
  });

  const one = await app.http.get('/v1/relay/channels/orders').set('Authorization', auth);
  expect(one.body.result).toEqual({
    id: 'orders',
    queued: 1,
    delayed: 1,
    in_flight: 1,
    groups: 0,
    blocked_groups: 0,
    dead_count: 0,
    storage_bytes: 19,
    oldest_message_ms: oldest.timestamp_ms,
    oldest_message_age_seconds: expect.any(Number),
    expiring_within_1h: 0,
    config: DEFAULT_CHANNEL_CONFIG,
  });
});

test('an account without channels lists none', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const list = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.body.result).toEqual({ channels: [] });
});

test('PUT configures and answers with the channel', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const put = await app.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dead_letter_channel: 'orders-dlq', max_attempts: 5, dedup_window_seconds: 60 });
  expect(put.status).toBe(200);
  expect(put.body.result).toEqual({
    id: 'orders',
    queued: 0,
    delayed: 0,
    in_flight: 0,
    groups: 0,
    blocked_groups: 0,
    dead_count: 0,
    storage_bytes: 0,
    oldest_message_ms: null,
    oldest_message_age_seconds: null,
    expiring_within_1h: 0,
    config: {
      ...DEFAULT_CHANNEL_CONFIG,
      dead_letter_channel: 'orders-dlq',
      max_attempts: 5,
      dedup_window_seconds: 60,
    },
  });
  const dlq = await app.http.get('/v1/relay/channels/orders-dlq').set('Authorization', auth);
  expect(dlq.status).toBe(200);
  const cleared = await app.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dead_letter_channel: null });
  expect(cleared.body.result.config).toEqual({
    ...DEFAULT_CHANNEL_CONFIG,
    max_attempts: 5,
    dedup_window_seconds: 60,
  });
});

test('GET, DELETE and purge of an unknown channel are 404s and create nothing', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const get = await app.http.get('/v1/relay/channels/nope').set('Authorization', auth);
  expect(get.status).toBe(404);
  expect(get.body).toEqual(notFound('channel nope does not exist'));
  const del = await app.http.delete('/v1/relay/channels/nope').set('Authorization', auth);
  expect(del.status).toBe(404);
  expect(del.body).toEqual(notFound('channel nope does not exist'));
  const purge = await app.http
    .post('/v1/relay/channels/nope/messages/purge')
    .set('Authorization', auth)
    .send({});
  expect(purge.status).toBe(404);
  expect(purge.body).toEqual(notFound('channel nope does not exist'));
  const list = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.body.result.channels).toEqual([]);
});

test('a deleted channel is gone: 404 on GET, and a second delete is a 404', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  await send(auth, 'orders', { body: 1 });
  const del = await app.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(del.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { deleted_count: 1 },
  });
  expect((await app.http.get('/v1/relay/channels/orders').set('Authorization', auth)).status).toBe(
    404,
  );
  const again = await app.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(again.body).toEqual(notFound('channel orders does not exist'));
  // a pull of the deleted channel is an empty batch and does not bring it back
  const pull = await app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(pull.body.result).toEqual({ message_backlog_count: 0, messages: [] });
  expect((await app.http.get('/v1/relay/channels').set('Authorization', auth)).body.result).toEqual(
    { channels: [] },
  );
});

test("deleting a channel that is another's dead-letter channel unsets it there", async () => {
  const { auth } = await accountWithToken(app, 'acme');
  await app.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dead_letter_channel: 'orders-dlq', max_attempts: 1 });
  // a pull first, so that this pod remembers orders-dlq as the dead-letter channel
  const first = await app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(first.status).toBe(200);
  const del = await app.http.delete('/v1/relay/channels/orders-dlq').set('Authorization', auth);
  expect(del.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { deleted_count: 0 },
  });
  const orders = await app.http.get('/v1/relay/channels/orders').set('Authorization', auth);
  expect(orders.body.result.config).toEqual({ ...DEFAULT_CHANNEL_CONFIG, max_attempts: 1 });
  // A message past its last delivery is now discarded; the deleted channel stays deleted.
  await send(auth, 'orders', { body: 1 });
  const pulled = await app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({ visibility_timeout_ms: 1000 });
  expect(pulled.body.result.messages).toHaveLength(1);
  await eventually(
    async () =>
      (await app.http.get('/v1/relay/channels/orders').set('Authorization', auth)).body.result
        .storage_bytes === 0,
    6000,
    100,
  );
  const list = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.body.result.channels.map((c: { id: string }) => c.id)).toEqual(['orders']);
  expect(await redis.keys('rq:\\{acme\\}:c:orders-dlq:*')).toEqual([]);
});

test('a scoped token sees only its channels and gets 403 on any other', async () => {
  const { auth: full } = await accountWithToken(app, 'acme');
  for (const ch of ['orders', 'alerts', 'billing']) await send(full, ch, { body: 1 });
  const { auth } = await accountWithToken(app, 'acme', { channels: ['orders', 'alerts', 'later'] });
  const list = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(list.body.result.channels.map((c: { id: string }) => c.id)).toEqual(['alerts', 'orders']);

  const forbidden = {
    success: false,
    errors: [{ code: 403, message: 'this token may not use channel billing' }],
    messages: [],
    result: null,
  };
  const calls = [
    app.http.get('/v1/relay/channels/billing'),
    app.http.put('/v1/relay/channels/billing').send({ max_attempts: 2 }),
    app.http.delete('/v1/relay/channels/billing'),
    app.http.post('/v1/relay/channels/billing/messages').send({ body: 1 }),
    app.http.post('/v1/relay/channels/billing/messages/pull').send({}),
    app.http.post('/v1/relay/channels/billing/messages/purge').send({}),
  ];
  for (const call of calls) {
    const res = await call.set('Authorization', auth);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(forbidden);
  }
  const dlq = await app.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dead_letter_channel: 'billing' });
  expect(dlq.body).toEqual(forbidden);
  expect((await send(auth, 'orders', { body: 2 })).status).toBe(200);
  const all = await app.http.get('/v1/relay/channels').set('Authorization', full);
  expect(all.body.result.channels).toHaveLength(3);
});

test('a channel that never held a message can be purged and deleted', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  await app.http
    .put('/v1/relay/channels/empty')
    .set('Authorization', auth)
    .send({ max_attempts: 2 });
  const purge = await app.http
    .post('/v1/relay/channels/empty/messages/purge')
    .set('Authorization', auth)
    .send({});
  expect(purge.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { purged_count: 0 },
  });
  const del = await app.http.delete('/v1/relay/channels/empty').set('Authorization', auth);
  expect(del.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { deleted_count: 0 },
  });
});
