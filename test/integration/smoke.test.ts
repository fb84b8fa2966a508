import { accountWithToken, startApp, type TestApp } from '../helpers/app';
import { startRedis, type TestRedis } from '../helpers/redis';

let redis: TestRedis;
let app: TestApp;

beforeAll(async () => {
  redis = await startRedis();
  app = await startApp(redis);
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});

test('send, pull and ack one message', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const sent = await app.http
    .post('/v1/relay/channels/orders/messages')
    .set('Authorization', auth)
    .send({ body: { n: 1 } });
  expect(sent.status).toBe(200);
  const pulled = await app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(pulled.body.result.messages).toHaveLength(1);
  expect(pulled.body.result.messages[0].id).toBe(sent.body.result.id);
  const acked = await app.http
    .post('/v1/relay/channels/orders/messages/ack')
    .set('Authorization', auth)
    .send({ lease_ids: [pulled.body.result.messages[0].lease_id] });
  expect(acked.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { acked_count: 1 },
  });
});
