/** Tokens, Authorization headers and message bodies never reach the logs. */
import { Writable } from 'node:stream';
import request from 'supertest';
import { buildApp, type RelayApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createRedis, type RedisClient } from '../../../src/store/redis';
import { ADMIN_TOKEN } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { path } from '../../helpers/relayClient';

let redis: TestRedis;
let client: RedisClient;
let relayApp: RelayApp;
let logged = '';

beforeAll(async () => {
  redis = await startRedis();
  const config = loadConfig({ ...redis.env, RELAY_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'trace' });
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  client = createRedis(config.redis);
  relayApp = buildApp({ config, redis: client, logger: createLogger('trace', sink) });
  await relayApp.start();
});
afterAll(async () => {
  await relayApp.close();
  client.disconnect();
  await redis.stop();
});

test('a day of requests logs no token, no secret and no body', async () => {
  const http = request(relayApp.app);
  const admin = `Bearer ${ADMIN_TOKEN}`;
  await http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: 'acme' });
  const made = await http
    .post('/v1/admin/accounts/acme/tokens')
    .set('Authorization', admin)
    .send({ name: 'laptop' });
  const token: string = made.body.result.token;
  const auth = `Bearer ${token}`;
  const secretBody = 'top-secret-payload-4711';
  await http
    .post(path('orders'))
    .set('Authorization', auth)
    .send({ body: secretBody, metadata: { pin: 'meta-secret-0815' } });
  const pulled = await http.post(path('orders', '/pull')).set('Authorization', auth).send({});
  await http
    .post(path('orders', '/ack'))
    .set('Authorization', auth)
    .send({ lease_ids: [pulled.body.result.messages[0].lease_id] });
  await http
    .post(path('orders'))
    .set('Authorization', `Bearer ${token}x`)
    .send({ body: secretBody });
  // an unexpected error is logged (with a request id), still without the request's secrets
  const queue = relayApp.store.queue;
  const original = queue.send;
  queue.send = async () => {
    throw new Error('boom');
  };
  try {
    const res = await http
      .post(path('orders'))
      .set('Authorization', auth)
      .send({ body: secretBody });
    expect(res.status).toBe(500);
  } finally {
    queue.send = original;
  }
  expect(logged).toContain('"route":"/v1/relay/channels/:channelId/messages/pull"');
  expect(logged).toContain('unexpected error');
  expect(logged).toContain('"reqId"');
  for (const secret of [token, token.slice(19, 62), ADMIN_TOKEN, secretBody, 'meta-secret-0815']) {
    expect(logged).not.toContain(secret);
  }
});
