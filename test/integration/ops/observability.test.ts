/**
 * Metrics, request ids and logs of the real server (runServer, both ports):
 * /metrics on METRICS_PORT only, route templates instead of raw paths,
 * message lifecycle counters that move, JSON logs with a request id and never
 * a token or a body.
 */
import request from 'supertest';
import WebSocket from 'ws';
import { accountWithToken, ADMIN_TOKEN, eventually } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { sample, serve, type ServedApp } from './serve';

// declared first, so that the server shuts down before useRelay() stops the Redis
afterAll(() => served?.shutdown());
const rq = useRelay({ pods: 0, flush: false });
let served: ServedApp;

const SECRET_CHANNEL = 'chan-4f9e2c7d';
const SECRET_BODY = 'body-text-8d1b3a55';

async function metricsText(): Promise<string> {
  const res = await request(served.metricsUrl).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

const messages = (text: string, event: string) =>
  sample(text, 'relayq_messages_total', { event }) ?? 0;

beforeAll(async () => {
  served = await serve(rq.redis, {
    RELAY_PLANS: JSON.stringify({
      brief: { max_storage_bytes: 1_000_000, max_channels: 10, retention_seconds: 1 },
    }),
  });
});

test('/metrics is Prometheus text on METRICS_PORT, with process defaults', async () => {
  const text = await metricsText();
  expect(text).toContain('# TYPE relayq_http_request_duration_seconds histogram');
  expect(text).toContain('# TYPE relayq_messages_total counter');
  expect(text).toContain('# TYPE relayq_redis_script_duration_seconds histogram');
  expect(text).toContain('# TYPE relayq_redis_script_errors_total counter');
  expect(text).toContain('# TYPE relayq_websocket_connections gauge');
  expect(text).toContain('# TYPE relayq_websocket_subscriptions gauge');
  expect(sample(text, 'relayq_process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
  const other = await request(served.metricsUrl).get('/other');
  expect(other.status).toBe(404);
});

test('/metrics is not served on the public port', async () => {
  const res = await served.app.http.get('/metrics');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({
    success: false,
    errors: [{ code: 404, message: 'no such endpoint: GET /metrics' }],
    messages: [],
    result: null,
  });
});

test('request durations are labelled by route template, never by raw path or channel id', async () => {
  const { auth } = await accountWithToken(served.app, 'acme');
  const before = await metricsText();
  const count = (text: string, labels: Record<string, string>) =>
    sample(text, 'relayq_http_request_duration_seconds_count', labels) ?? 0;
  const sent = await served.app.http
    .post(`/v1/relay/channels/${SECRET_CHANNEL}/messages`)
    .set('Authorization', auth)
    .send({ body: SECRET_BODY });
  expect(sent.status).toBe(200);
  await served.app.http.get(`/no/such/${SECRET_CHANNEL}`);
  const text = await metricsText();
  const post = { method: 'POST', route: '/v1/relay/channels/:channelId/messages', status: '200' };
  expect(count(text, post) - count(before, post)).toBe(1);
  const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
  expect(count(text, unmatched) - count(before, unmatched)).toBe(1);
  expect(text).not.toContain(SECRET_CHANNEL);
  expect(sample(text, 'relayq_redis_script_duration_seconds_count', { script: 'send' })).toBe(1);
});

test('message counters move for sent, pulled, acked, requeued, dead_lettered and expired', async () => {
  const before = await metricsText();
  const { auth } = await accountWithToken(served.app, 'counters');
  const post = (path: string, body: object) =>
    served.app.http.post(`/v1/relay/channels/${path}`).set('Authorization', auth).send(body);

  expect((await post('c1/messages/batch', { messages: [{ body: 1 }, { body: 2 }] })).status).toBe(
    200,
  );
  const pulled = await post('c1/messages/pull', { batch_size: 1 });
  expect(
    (await post('c1/messages/ack', { lease_ids: [pulled.body.result.messages[0].lease_id] })).body
      .result,
  ).toEqual({ acked_count: 1 });
  // the second message's lease ends unacknowledged: re-queued
  expect(
    (await post('c1/messages/pull', { visibility_timeout_ms: 1000 })).body.result.messages,
  ).toHaveLength(1);
  // a channel with one attempt and a dead-letter channel
  expect(
    (
      await served.app.http
        .put('/v1/relay/channels/c2')
        .set('Authorization', auth)
        .send({ max_attempts: 1, dead_letter_channel: 'c2-dlq' })
    ).status,
  ).toBe(200);
  await post('c2/messages', { body: 3 });
  expect(
    (await post('c2/messages/pull', { visibility_timeout_ms: 1000 })).body.result.messages,
  ).toHaveLength(1);

  // an account whose plan keeps messages for one second: expired
  await served.running.relay.store.accounts.create('shortlived', 'brief');
  const short = await accountWithToken(served.app, 'shortlived');
  const kept = await served.app.http
    .post('/v1/relay/channels/c3/messages')
    .set('Authorization', short.auth)
    .send({ body: 4 });
  expect(kept.status).toBe(200);

  let after = '';
  await eventually(async () => {
    after = await metricsText();
    return (
      messages(after, 'requeued') - messages(before, 'requeued') >= 1 &&
      messages(after, 'dead_lettered') - messages(before, 'dead_lettered') >= 1 &&
      messages(after, 'expired') - messages(before, 'expired') >= 1
    );
  }, 8000);
  expect(messages(after, 'sent') - messages(before, 'sent')).toBe(4);
  expect(messages(after, 'pulled') - messages(before, 'pulled')).toBe(3);
  expect(messages(after, 'acked') - messages(before, 'acked')).toBe(1);
  expect(messages(after, 'requeued') - messages(before, 'requeued')).toBe(1);
  expect(messages(after, 'dead_lettered') - messages(before, 'dead_lettered')).toBe(1);
  expect(messages(after, 'expired') - messages(before, 'expired')).toBe(1);
});

test('the WebSocket gauges count open connections and their channel subscriptions', async () => {
  const { auth } = await accountWithToken(served.app, 'sockets');
  const ws = new WebSocket(
    `${served.publicUrl.replace('http', 'ws')}/v1/relay/subscribe?channels=a,b,c`,
    { headers: { Authorization: auth } },
  );
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  let text = await metricsText();
  expect(sample(text, 'relayq_websocket_connections')).toBe(1);
  expect(sample(text, 'relayq_websocket_subscriptions')).toBe(3);
  await new Promise((resolve) => {
    ws.once('close', resolve);
    ws.close();
  });
  await eventually(async () => {
    text = await metricsText();
    return sample(text, 'relayq_websocket_connections') === 0;
  });
  expect(sample(text, 'relayq_websocket_subscriptions')).toBe(0);
});

test('X-Request-Id is echoed when sane, and made up otherwise', async () => {
  const given = await served.app.http.get('/healthz').set('X-Request-Id', 'lb-7f3a.92:01_x');
  expect(given.headers['x-request-id']).toBe('lb-7f3a.92:01_x');
  const none = await served.app.http.get('/healthz');
  expect(none.headers['x-request-id']).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  );
  const insane = await served.app.http.get('/healthz').set('X-Request-Id', 'a b<script>');
  expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const tooLong = await served.app.http.get('/healthz').set('X-Request-Id', 'x'.repeat(129));
  expect(tooLong.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

test('logs are JSON lines with the request id, and never hold a token or a body', async () => {
  const { auth, token } = await accountWithToken(served.app, 'logs');
  served.rawLogs.length = 0;
  const sent = await served.app.http
    .post(`/v1/relay/channels/${SECRET_CHANNEL}/messages`)
    .set('Authorization', auth)
    .set('X-Request-Id', 'req-logs-1')
    .send({ body: SECRET_BODY, metadata: { note: SECRET_BODY } });
  expect(sent.status).toBe(200);
  const bad = await served.app.http
    .post(`/v1/relay/channels/${SECRET_CHANNEL}/messages`)
    .set('Authorization', auth)
    .set('X-Request-Id', 'req-logs-2')
    .type('application/json')
    .send(`{"body": "${SECRET_BODY}",`);
  expect(bad.status).toBe(400);
  const refused = await served.app.http
    .post(`/v1/relay/channels/${SECRET_CHANNEL}/messages`)
    .set('Authorization', `Bearer ${token}x`)
    .send({ body: SECRET_BODY });
  expect(refused.status).toBe(401);
  const adminCall = await served.app.http
    .post('/v1/admin/accounts/logs/tokens')
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ name: 'n' });
  expect(adminCall.status).toBe(200);

  await eventually(() => served.rawLogs.length >= 4);
  const logs = served.logs; // every line parses as JSON
  const first = logs.find((l) => l.reqId === 'req-logs-1');
  expect(first).toMatchObject({
    level: 30,
    service: 'relayq',
    msg: 'request',
    method: 'POST',
    route: '/v1/relay/channels/:channelId/messages',
    status: 200,
  });
  expect(first!.time).toEqual(expect.any(Number));
  expect(logs.find((l) => l.reqId === 'req-logs-2')).toMatchObject({ status: 400 });
  const all = served.rawLogs.join('');
  expect(all).not.toContain(token);
  expect(all).not.toContain(token.slice(-16));
  expect(all).not.toContain(adminCall.body.result.token);
  expect(all).not.toContain(ADMIN_TOKEN);
  expect(all).not.toContain(SECRET_BODY);
  expect(all).not.toContain(SECRET_CHANNEL);
  expect(all).not.toMatch(/authorization/i);
});
