/**
 * Push destinations end to end: the API (create, validation, list, show, pause, delete), and
 * deliveries to real HTTP receivers on loopback by two pods: request shapes and signatures,
 * retries on the destination's own schedule (beyond the channel's max_attempts), order with
 * parallelism 1 across a failure, Retry-After, 410, dead messages and redrive, parallelism and
 * rate across pods, the circuit breaker, and the private-address refusal.
 */
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { accountWithToken, eventually, sleep, startApp } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { startReceiver, verifyStandardWebhooks, type Receiver } from './receiver';

const pods = useTwoPods((redis) => startApp(redis, { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true' }));

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
  for (const pod of [pods.a, pods.b]) {
    Object.assign(pod.relay.deliveries!.options, {
      pollMs: 200,
      cooldownMs: 30_000,
      allowPrivate: true,
    });
  }
});
afterEach(async () => {
  await receiver.close();
});

const dpath = (channel: string, rest = '') => `/v1/relay/channels/${channel}/destinations${rest}`;

async function setup(prefix: string, body: Record<string, unknown> = {}, channel = 'orders') {
  const acc = await accountOnPods(pods, prefix);
  const res = await pods.a.http
    .post(dpath(channel))
    .set('Authorization', acc.auth)
    .send({ url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return { ...acc, dest: res.body.result, channel };
}

async function show(auth: string, channel: string, id: string) {
  const res = await pods.b.http.get(dpath(channel, `/${id}`)).set('Authorization', auth);
  expect(res.status).toBe(200);
  return res.body.result;
}

test('create answers the secret once; one per channel (409 names it); list, show, delete', async () => {
  const acc = await accountOnPods(pods, 'dc');
  const res = await pods.a.http
    .post(dpath('orders'))
    .set('Authorization', acc.auth)
    .send({ url: 'https://example.com/hook', paused: true });
  expect(res.status).toBe(200);
  const d = res.body.result;
  expect(d.id).toMatch(/^dst_[0-9a-f]{16}$/);
  expect(d.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(d.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
  expect(d.state).toBe('paused');
  expect(d.retry).toEqual({
    schedule_seconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
    max_attempts: 8,
  });
  expect(d.parallelism).toBe(1);
  expect(d.signing).toBe('standard-webhooks');
  // the channel exists from the destination on
  expect((await acc.ca.channel('orders')).status).toBe(200);

  const again = await pods.b.http
    .post(dpath('orders'))
    .set('Authorization', acc.auth)
    .send({ url: 'https://example.com/other' });
  expect(again.status).toBe(409);
  expect(again.body.errors[0].message).toContain(d.id);

  const list = await pods.b.http.get(dpath('orders')).set('Authorization', acc.auth);
  expect(list.body.result.destinations).toHaveLength(1);
  expect(JSON.stringify(list.body)).not.toContain(d.secret);
  const one = await show(acc.auth, 'orders', d.id);
  expect(one).toMatchObject({ id: d.id, state: 'paused', consecutive_failures: 0, dead_count: 0 });
  expect(one.secret).toBeUndefined();

  const resumed = await pods.a.http
    .patch(dpath('orders', `/${d.id}`))
    .set('Authorization', acc.auth)
    .send({ paused: false, rate_limit: { count: 10, period_seconds: 2 } });
  expect(resumed.status).toBe(200);
  expect(resumed.body.result).toMatchObject({
    state: 'active',
    rate_limit: { count: 10, period_seconds: 2 },
  });
  const rotated = await pods.a.http
    .patch(dpath('orders', `/${d.id}`))
    .set('Authorization', acc.auth)
    .send({ rotate_secret: true });
  expect(rotated.body.result.secret).toMatch(/^whsec_/);
  expect(rotated.body.result.secret).not.toBe(d.secret);

  const del = await pods.a.http.delete(dpath('orders', `/${d.id}`)).set('Authorization', acc.auth);
  expect(del.status).toBe(200);
  const gone = await pods.a.http.get(dpath('orders', `/${d.id}`)).set('Authorization', acc.auth);
  expect(gone.status).toBe(404);
});

test.each([
  [{ url: 'ftp://example.com' }, 'url must be an absolute http:// or https:// URL'],
  [{ url: '/relative' }, 'url must be an absolute http:// or https:// URL'],
  [{ url: 'https://e.com', headers: { Host: 'x' } }, 'headers.Host may not be set'],
  [{ url: 'https://e.com', headers: { Connection: 'close' } }, 'headers.Connection may not be set'],
  [{ url: 'https://e.com', parallelism: 0 }, 'parallelism must be an integer from 1 to 1000'],
  [{ url: 'https://e.com', parallelism: 1001 }, 'parallelism must be an integer from 1 to 1000'],
  [
    { url: 'https://e.com', retry: { schedule_seconds: new Array(21).fill(1) } },
    'retry.schedule_seconds may have at most 20 entries',
  ],
  [
    { url: 'https://e.com', retry: { schedule_seconds: [0, 86401] } },
    'retry.schedule_seconds[1] must be an integer from 0 to 86400',
  ],
  [
    { url: 'https://e.com', rate_limit: { count: 0 } },
    'rate_limit.count must be an integer of at least 1',
  ],
  [{ headers: {} }, 'url is required'],
])('bad input %j is a 400 naming the field, creating nothing', async (body, message) => {
  const acc = await accountOnPods(pods, 'dv');
  const res = await pods.a.http.post(dpath('bad')).set('Authorization', acc.auth).send(body);
  expect(res.status).toBe(400);
  expect(res.body.errors[0].message).toContain(message);
  expect((await acc.ca.channel('bad')).status).toBe(404);
});

test('a JSON message is POSTed with its metadata, ids, attempts and a valid signature; acked', async () => {
  const { ca, auth, dest } = await setup('dj');
  const sent = await ca.send('orders', { body: { order: 7 }, metadata: { source: 'shop' } });
  const id = sent.body.result.id;
  await eventually(() => receiver.received.length === 1);
  const r = receiver.received[0];
  expect(r.method).toBe('POST');
  expect(r.body.toString()).toBe('{"order":7}');
  expect(r.headers['content-type']).toBe('application/json');
  expect(JSON.parse(String(r.headers['x-relayq-metadata']))).toEqual({ source: 'shop' });
  expect(r.headers['x-relayq-message-id']).toBe(id);
  expect(r.headers['x-relayq-attempts']).toBe('1');
  expect(r.headers['webhook-id']).toBe(id);
  expect(verifyStandardWebhooks(dest.secret, r.headers, r.body, 5)).toBe(true);
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
  expect(new Webhook(dest.secret).verify(r.body.toString(), headers)).toEqual({ order: 7 });
  expect(
    verifyStandardWebhooks('whsec_' + Buffer.alloc(24).toString('base64'), r.headers, r.body),
  ).toBe(false);
  // acked: nothing left in the channel; the attempt is logged
  await eventually(
    async () =>
      (await ca.channel('orders')).body.result.queued === 0 &&
      (await ca.channel('orders')).body.result.in_flight === 0,
  );
  await eventually(async () => {
    const log = await pods.b.http
      .get(dpath('orders', `/${dest.id}/attempts`))
      .set('Authorization', auth);
    return log.body.result.attempts.length === 1;
  });
  const log = await pods.b.http
    .get(dpath('orders', `/${dest.id}/attempts`))
    .set('Authorization', auth);
  expect(log.body.result.attempts[0]).toMatchObject({
    message_id: id,
    attempt: 1,
    status: 200,
    error: null,
    response_excerpt: 'answer body',
  });
  expect(log.body.result.next_cursor).toBeNull();
  expect((await show(auth, 'orders', dest.id)).last_success_at).not.toBeNull();
});

test('text and bytes bodies keep their type; signing none sends no webhook-* headers', async () => {
  const { ca } = await setup('dt', { signing: 'none', headers: { 'X-Token': 'abc' } });
  await ca.send('orders', { body: 'hello', content_type: 'text' });
  await ca.send('orders', {
    body: Buffer.from([0, 1, 2, 255]).toString('base64'),
    content_type: 'bytes',
  });
  await eventually(() => receiver.received.length === 2);
  const [t, b] = receiver.received;
  expect(t.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(t.body.toString()).toBe('hello');
  expect(b.headers['content-type']).toBe('application/octet-stream');
  expect([...b.body]).toEqual([0, 1, 2, 255]);
  expect(t.headers['x-token']).toBe('abc');
  expect(t.headers['webhook-signature']).toBeUndefined();
});

test('a webhook message is replayed as received; its own webhook-* headers kept as X-Relayq-Original-*', async () => {
  const { ca, auth, dest } = await setup('dw');
  const hook = await pods.a.http
    .post('/v1/relay/channels/orders/webhooks')
    .set('Authorization', auth)
    .send({});
  const path = new URL(hook.body.result.url).pathname;
  const raw = '{"type":"charge.succeeded",  "id": 1}';
  const res = await pods.b.http
    .put(`${path}?a=1`)
    .set('Content-Type', 'application/json')
    .set('webhook-id', 'msg_original')
    .set('X-Provider', 'acme')
    .send(raw);
  expect(res.status).toBe(200);
  await eventually(() => receiver.received.length === 1);
  const r = receiver.received[0];
  expect(r.method).toBe('PUT');
  expect(r.url).toBe('/in?a=1');
  expect(r.body.toString()).toBe(raw);
  expect(r.headers['x-provider']).toBe('acme');
  expect(r.headers['x-relayq-original-webhook-id']).toBe('msg_original');
  expect(r.headers['webhook-id']).not.toBe('msg_original');
  expect(verifyStandardWebhooks(dest.secret, r.headers, r.body)).toBe(true);
  void ca;
});

test('parallelism 1: a failing message is retried on its schedule before any later one; beyond the channel max_attempts', async () => {
  const { ca, auth, dest } = await setup('do', {
    retry: { schedule_seconds: [0, 0, 1], max_attempts: 6 },
  });
  let failures = 0;
  receiver.answer = (r) => {
    const n = JSON.parse(r.body.toString()).n;
    if (n === 1 && failures < 4) {
      failures++;
      return { status: 500 };
    }
    return { status: 200 };
  };
  for (const n of [1, 2, 3]) await ca.send('orders', { body: { n } });
  await eventually(() => receiver.received.length === 7, 15_000);
  const seen = receiver.received.map((r) => JSON.parse(r.body.toString()).n);
  expect(seen).toEqual([1, 1, 1, 1, 1, 2, 3]);
  expect(receiver.received.slice(0, 5).map((r) => r.headers['x-relayq-attempts'])).toEqual([
    '1',
    '2',
    '3',
    '4',
    '5',
  ]);
  // schedule: attempt 2 at once, 3 and later after 1 s (the last step repeats)
  const at = receiver.received.map((r) => r.at);
  expect(at[2] - at[1]).toBeGreaterThanOrEqual(900);
  expect(at[3] - at[2]).toBeGreaterThanOrEqual(900);
  expect(receiver.maxInFlight).toBe(1);
  const d = await show(auth, 'orders', dest.id);
  expect(d.consecutive_failures).toBe(0);
  expect(d.last_failure).toBe('HTTP 500');
});

test("a channel's history notes each attempt (status, duration), its retry and the ack", async () => {
  const { ca, auth } = await setup('dh', { retry: { schedule_seconds: [0, 0], max_attempts: 3 } });
  const on = await pods.a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ history_seconds: 3600 });
  expect(on.status).toBe(200);
  let answered = 0;
  receiver.answer = () => (answered++ === 0 ? { status: 500 } : { status: 200, delayMs: 120 });
  const id = (await ca.send('orders', { body: { n: 1 } })).body.result.id as string;
  const detail = async () =>
    (await pods.b.http.get(`/v1/relay/channels/orders/history/${id}`).set('Authorization', auth))
      .body.result;
  await eventually(async () => (await detail()).status === 'acked', 15_000);
  const d = await detail();
  expect(d.timeline.map((t: { type: string }) => t.type)).toEqual([
    'received',
    'delivery',
    'retry',
    'delivery',
    'ack',
  ]);
  expect(d.timeline[1]).toMatchObject({
    via: 'destination',
    attempt: 1,
    status: 500,
    outcome: 'fail',
  });
  expect(d.timeline[2]).toMatchObject({ type: 'retry', delay_ms: 0 });
  expect(d.timeline[3]).toMatchObject({
    via: 'destination',
    attempt: 2,
    status: 200,
    outcome: 'ok',
  });
  // the receiver held the second answer 120 ms: the duration says so, and the delivery's time
  // is when the request started (before the ack)
  expect(d.timeline[3].duration_ms).toBeGreaterThanOrEqual(100);
  expect(d.timeline[3].at).toBeLessThanOrEqual(d.timeline[4].at - 100);
  expect(d.attempts).toBe(2);
});

test('spent attempts keep the message as dead in the channel (dead_count), redrive brings it back', async () => {
  const { ca, auth, dest } = await setup('dd', {
    retry: { schedule_seconds: [0], max_attempts: 2 },
  });
  receiver.answer = () => ({ status: 500 });
  await ca.send('orders', { body: { n: 1 } });
  await eventually(async () => (await show(auth, 'orders', dest.id)).dead_count === 1);
  expect(receiver.received).toHaveLength(2);
  // not pulled by anyone meanwhile, not discarded
  expect((await ca.pull('orders', { batch_size: 10 })).body.result.messages).toHaveLength(0);
  receiver.answer = () => ({ status: 200 });
  const moved = await pods.a.http
    .post(dpath('orders', `/${dest.id}/redrive`))
    .set('Authorization', auth)
    .send({});
  expect(moved.body.result).toEqual({ moved_count: 1 });
  await eventually(() => receiver.received.length === 3);
  expect(receiver.received[2].headers['x-relayq-attempts']).toBe('1');
  await eventually(async () => (await show(auth, 'orders', dest.id)).dead_count === 0);
});

test("the channel's own view counts its dead messages; POST /v1/relay/channels/{id}/redrive brings them back", async () => {
  const { ca, auth, dest, id } = await setup('dh', {
    retry: { schedule_seconds: [0], max_attempts: 1 },
  });
  receiver.answer = () => ({ status: 500 });
  await ca.send('orders', { body: { n: 1 } });
  await ca.send('orders', { body: { n: 2 } });
  await eventually(async () => (await ca.channel('orders')).body.result.dead_count === 2);
  const view = (await ca.channel('orders')).body.result;
  // dead messages are neither queued, delayed nor in flight
  expect([view.queued, view.delayed, view.in_flight, view.dead_count]).toEqual([0, 0, 0, 2]);
  const listed = await pods.b.http.get('/v1/relay/channels').set('Authorization', auth);
  expect(listed.body.result.channels[0]).toMatchObject({ id: 'orders', dead_count: 2 });
  expect((await show(auth, 'orders', dest.id)).dead_count).toBe(2);

  const redrive = (channel: string, body: object = {}, token = auth) =>
    pods.b.http
      .post(`/v1/relay/channels/${channel}/redrive`)
      .set('Authorization', token)
      .send(body);
  expect((await redrive('orders', { max: 0 })).status).toBe(400);
  const missing = await redrive('nowhere');
  expect(missing.status).toBe(404);
  expect(missing.body.errors[0].message).toBe('channel nowhere does not exist');
  const other = await accountWithToken(pods.a, id, { channels: ['elsewhere'] });
  expect((await redrive('orders', {}, other.auth)).status).toBe(403);

  receiver.answer = () => ({ status: 200 });
  const first = await redrive('orders', { max: 1 });
  expect(first.status).toBe(200);
  expect(first.body.result).toEqual({ moved_count: 1 });
  await eventually(() => receiver.received.length === 3);
  expect(JSON.parse(receiver.received[2].body.toString())).toEqual({ n: 1 });
  expect((await redrive('orders')).body.result).toEqual({ moved_count: 1 });
  await eventually(() => receiver.received.length === 4);
  await eventually(async () => {
    const v = (await ca.channel('orders')).body.result;
    return v.dead_count === 0 && v.queued === 0 && v.in_flight === 0;
  });
  // a channel without dead messages (or without a destination) moves none
  expect((await redrive('orders')).body.result).toEqual({ moved_count: 0 });
});

test("the attempts log is kept for the channel's retention (its setting, else the plan's)", async () => {
  const { ca, auth, id, dest } = await setup('dg');
  const logTtl = async () =>
    (await pods.redis.eachMaster((node) => node.pttl(`rq:{${id}}:c:orders:dst:log`))).find(
      (ms) => ms > 0,
    ) ?? -2;
  await ca.send('orders', { body: { n: 1 } });
  await eventually(() => receiver.received.length === 1);
  await eventually(async () => (await logTtl()) > 0);
  // the free plan keeps messages 3 days
  expect(await logTtl()).toBeGreaterThan(259_100_000);
  expect(await logTtl()).toBeLessThanOrEqual(259_200_000);
  const set = await pods.a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ retention_seconds: 120 });
  expect(set.status).toBe(200);
  await ca.send('orders', { body: { n: 2 } });
  await eventually(async () => (await logTtl()) <= 120_000);
  expect(await logTtl()).toBeGreaterThan(100_000);
  const log = await pods.b.http
    .get(dpath('orders', `/${dest.id}/attempts`))
    .set('Authorization', auth);
  expect(log.body.result.attempts).toHaveLength(2);
});

test('with a dead-letter channel, spent attempts move the message there', async () => {
  const acc = await accountOnPods(pods, 'dl');
  await pods.a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', acc.auth)
    .send({ dead_letter_channel: 'orders-dlq' });
  const res = await pods.a.http
    .post(dpath('orders'))
    .set('Authorization', acc.auth)
    .send({ url: receiver.url, retry: { schedule_seconds: [0], max_attempts: 1 } });
  expect(res.status).toBe(200);
  receiver.answer = () => ({ status: 503 });
  await acc.ca.send('orders', { body: { n: 1 } });
  await eventually(async () => (await acc.ca.channel('orders-dlq')).body.result?.queued === 1);
});

test('429 with Retry-After waits at least that long; 410 disables until re-enabled', async () => {
  const { ca, auth, dest } = await setup('dr', {
    retry: { schedule_seconds: [0], max_attempts: 10 },
  });
  let calls = 0;
  receiver.answer = () => {
    calls++;
    if (calls === 1) return { status: 429, headers: { 'Retry-After': '2' } };
    if (calls === 2) return { status: 410 };
    return { status: 200 };
  };
  await ca.send('orders', { body: { n: 1 } });
  await eventually(() => receiver.received.length === 2, 8000);
  expect(receiver.received[1].at - receiver.received[0].at).toBeGreaterThanOrEqual(1900);
  await eventually(async () => (await show(auth, 'orders', dest.id)).state === 'disabled');
  const d = await show(auth, 'orders', dest.id);
  expect(d.disabled_reason).toBe('gone');
  await sleep(500);
  expect(receiver.received).toHaveLength(2);
  const enabled = await pods.a.http
    .patch(dpath('orders', `/${dest.id}`))
    .set('Authorization', auth)
    .send({ state: 'active' });
  expect(enabled.body.result.state).toBe('active');
  await eventually(() => receiver.received.length === 3);
});

test('parallelism across two pods: never more requests in flight than parallelism', async () => {
  const { ca } = await setup('dp', { parallelism: 3 });
  receiver.answer = () => ({ status: 200, delayMs: 150 });
  await ca.batch('orders', { messages: Array.from({ length: 24 }, (_, n) => ({ body: { n } })) });
  await eventually(() => receiver.received.length === 24, 15_000);
  expect(receiver.maxInFlight).toBe(3);
});

test('rate_limit across two pods: at most count request starts in any period', async () => {
  const { ca } = await setup('dq', {
    parallelism: 20,
    rate_limit: { count: 4, period_seconds: 1 },
  });
  await ca.batch('orders', { messages: Array.from({ length: 12 }, (_, n) => ({ body: { n } })) });
  await eventually(() => receiver.received.length === 12, 15_000);
  const at = receiver.received.map((r) => r.at).sort((x, y) => x - y);
  // counted when the pods take the messages (in Redis); arrival adds the connection's jitter
  // (up to a few hundred ms on a loaded machine); without the limit all 12 arrive at once
  for (let i = 4; i < at.length; i++) expect(at[i] - at[i - 4]).toBeGreaterThanOrEqual(600);
  expect(at[11] - at[0]).toBeGreaterThanOrEqual(1800);
});

test('rate_limit spreads a window over its period (count 20: one start in any 45 ms), not one burst', async () => {
  const { ca } = await setup('ds', {
    parallelism: 20,
    rate_limit: { count: 20, period_seconds: 1 },
  });
  await ca.batch('orders', { messages: Array.from({ length: 20 }, (_, n) => ({ body: { n } })) });
  await eventually(() => receiver.received.length === 20, 15_000);
  const at = receiver.received.map((r) => r.at).sort((x, y) => x - y);
  // one per 45 ms: the 20 go out over about 0.85 s, not at once
  for (let i = 2; i < at.length; i++) expect(at[i] - at[i - 2]).toBeGreaterThanOrEqual(60);
  expect(at[19] - at[0]).toBeGreaterThanOrEqual(700);
});

test('the circuit breaker opens after 20 failures, probes after its cooldown and closes on success', async () => {
  for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.options.cooldownMs = 1000;
  const { ca, auth, dest } = await setup('db', {
    retry: { schedule_seconds: [0], max_attempts: 100 },
  });
  receiver.answer = () => ({ status: 500 });
  await ca.send('orders', { body: { n: 1 } });
  await eventually(
    async () => (await show(auth, 'orders', dest.id)).circuit_open_until !== null,
    10_000,
  );
  const opened = receiver.received.length;
  expect(opened).toBe(20);
  await sleep(300);
  expect(receiver.received).toHaveLength(20);
  receiver.answer = () => ({ status: 200 });
  await eventually(() => receiver.received.length === 21, 5000);
  expect(receiver.received[20].at - receiver.received[19].at).toBeGreaterThanOrEqual(900);
  await eventually(async () => (await show(auth, 'orders', dest.id)).consecutive_failures === 0);
  expect((await show(auth, 'orders', dest.id)).circuit_open_until).toBeNull();
});

test('without RELAY_DESTINATIONS_ALLOW_PRIVATE a loopback address is refused without connecting', async () => {
  for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.options.allowPrivate = false;
  const { ca, auth, dest } = await setup('dx', {
    retry: { schedule_seconds: [0, 60], max_attempts: 3 },
  });
  await ca.send('orders', { body: { n: 1 } });
  await eventually(async () => (await show(auth, 'orders', dest.id)).last_failure !== null);
  const d = await show(auth, 'orders', dest.id);
  expect(d.last_failure).toContain('refused_private');
  expect(d.last_failure).toContain('127.0.0.1');
  expect(receiver.received).toHaveLength(0);
  // a name that resolves to loopback is refused on the resolved address
  const byName = await pods.a.http
    .patch(dpath('orders', `/${dest.id}`))
    .set('Authorization', auth)
    .send({ url: receiver.url.replace('127.0.0.1', 'localhost') });
  expect(byName.status).toBe(200);
});

test('pause keeps messages; resume delivers them', async () => {
  const { ca, auth, dest } = await setup('dz', { paused: true });
  await ca.send('orders', { body: { n: 1 } });
  await sleep(500);
  expect(receiver.received).toHaveLength(0);
  await pods.b.http
    .patch(dpath('orders', `/${dest.id}`))
    .set('Authorization', auth)
    .send({ paused: false });
  await eventually(() => receiver.received.length === 1);
});

test('verified Stripe and Standard Webhooks deliveries are signed afresh when replayed 6 s later (5 s tolerance)', async () => {
  const crypto = await import('node:crypto');
  const acc = await accountOnPods(pods, 'ds');
  const stripeSecret = 'whsec_stripe_test_secret_value';
  const swSecret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  const hook = async (channel: string, verify: object) => {
    const res = await pods.a.http
      .post(`/v1/relay/channels/${channel}/webhooks`)
      .set('Authorization', acc.auth)
      .send({ verify });
    expect(res.status).toBe(200);
    return new URL(res.body.result.url).pathname;
  };
  const stripePath = await hook('stripe', { scheme: 'stripe', secret: stripeSecret });
  const swPath = await hook('sw', { scheme: 'standard-webhooks', secret: swSecret });
  const dests: Record<string, string> = {};
  for (const [channel, signing] of [
    ['stripe', 'standard-webhooks'],
    ['sw', 'none'],
  ]) {
    const res = await pods.a.http
      .post(dpath(channel))
      .set('Authorization', acc.auth)
      .send({ url: `${receiver.url}/${channel}`, signing, paused: true });
    dests[channel] = res.body.result.id;
  }
  const body = '{"id":"evt_1","type":"charge.succeeded"}';
  const t = Math.floor(Date.now() / 1000);
  const stripeSig = crypto.createHmac('sha256', stripeSecret).update(`${t}.${body}`).digest('hex');
  expect(
    (
      await pods.a.http
        .post(stripePath)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', `t=${t},v1=${stripeSig}`)
        .send(body)
    ).status,
  ).toBe(200);
  const swKey = Buffer.from(swSecret.slice(6), 'base64');
  const swSig = crypto.createHmac('sha256', swKey).update(`msg_1.${t}.${body}`).digest('base64');
  expect(
    (
      await pods.a.http
        .post(swPath)
        .set('Content-Type', 'application/json')
        .set('webhook-id', 'msg_1')
        .set('webhook-timestamp', String(t))
        .set('webhook-signature', `v1,${swSig}`)
        .send(body)
    ).status,
  ).toBe(200);
  await sleep(6000);
  for (const channel of ['stripe', 'sw'])
    await pods.b.http
      .patch(dpath(channel, `/${dests[channel]}`))
      .set('Authorization', acc.auth)
      .send({ paused: false });
  await eventually(() => receiver.received.length === 2);
  const byPath = Object.fromEntries(receiver.received.map((r) => [r.url, r]));
  const s = byPath['/in/stripe'];
  expect(s.body.toString()).toBe(body);
  const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(s.headers['stripe-signature']))!;
  expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThanOrEqual(5);
  expect(v1).toBe(crypto.createHmac('sha256', stripeSecret).update(`${ts}.${body}`).digest('hex'));
  const stripe = new Stripe('sk_test_destinations');
  expect(
    stripe.webhooks.constructEvent(s.body, String(s.headers['stripe-signature']), stripeSecret, 5),
  ).toMatchObject({ id: 'evt_1', type: 'charge.succeeded' });
  expect(s.headers['x-relayq-original-stripe-signature']).toBe(`t=${t},v1=${stripeSig}`);
  // the destination signs too (standard-webhooks)
  expect(s.headers['webhook-signature']).toMatch(/^v1,/);
  const w = byPath['/in/sw'];
  expect(w.headers['webhook-id']).toBe('msg_1');
  expect(verifyStandardWebhooks(swSecret, w.headers, w.body, 5)).toBe(true);
  const swHeaders = Object.fromEntries(Object.entries(w.headers).map(([k, v]) => [k, String(v)]));
  expect(new Webhook(swSecret).verify(w.body.toString(), swHeaders)).toEqual(JSON.parse(body));
  expect(w.headers['x-relayq-original-webhook-signature']).toBe(`v1,${swSig}`);
});

test('a pod that dies mid-request: its lease (timeout_ms + 5 s) holds the slot, then another pod delivers', async () => {
  for (const pod of [pods.a, pods.b]) await pod.relay.deliveries!.stop();
  try {
    const { ca, id, dest } = await setup('dk', { timeout_ms: 200 });
    await ca.send('orders', { body: { n: 1 } });
    await ca.send('orders', { body: { n: 2 } });
    // a pod takes the first message, then dies before sending it or recording anything
    const taken = await pods.a.relay.relay.destinations.take(id, 'orders', dest.id, 10);
    expect(taken.messages.map((m) => m.attempt)).toEqual([1]);
    const tookAt = Date.now();
    for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.start();
    await eventually(() => receiver.received.length === 2, 10_000);
    // nothing was sent while the dead pod's lease held the one slot (parallelism 1, in order)
    expect(receiver.received[0].at - tookAt).toBeGreaterThanOrEqual(4800);
    expect(receiver.received.map((r) => JSON.parse(r.body.toString()).n)).toEqual([1, 2]);
    expect(receiver.received[0].headers['x-relayq-attempts']).toBe('2');
  } finally {
    for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.start();
  }
});

test('metrics count attempts by result and destinations by state', async () => {
  const { ca } = await setup('dm');
  receiver.answer = () => ({ status: 500 });
  await ca.send('orders', { body: { n: 1 } });
  await eventually(() => receiver.received.length >= 1);
  await eventually(async () => {
    const text = await pods.a.relay.metrics.registry.metrics();
    const b = await pods.b.relay.metrics.registry.metrics();
    return /relayq_push_attempts_total\{result="http_5xx"\} [1-9]/.test(text + b);
  });
  const text = await pods.a.relay.metrics.registry.metrics();
  expect(text).toMatch(/relayq_destinations\{state="active"\} [1-9]/);
  expect(text).toContain('relayq_push_duration_seconds_bucket');
});

test('per-destination metrics for the accounts in RELAY_METRICS_ACCOUNTS (attempts by result, duration, dead messages)', async () => {
  for (const pod of [pods.a, pods.b]) await pod.relay.deliveries!.stop();
  const acc = await accountOnPods(pods, 'dmx');
  const other = await accountOnPods(pods, 'dmy');
  const c = await startApp(pods.redis, {
    RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true',
    RELAY_METRICS_ACCOUNTS: acc.id,
  });
  try {
    Object.assign(c.relay.deliveries!.options, { pollMs: 200 });
    for (const { auth } of [acc, other]) {
      const res = await c.http
        .post(dpath('orders'))
        .set('Authorization', auth)
        .send({ url: receiver.url, retry: { schedule_seconds: [0], max_attempts: 2 } });
      expect(res.status).toBe(200);
    }
    receiver.answer = (r) => ({ status: JSON.parse(r.body.toString()).ok ? 200 : 500 });
    await acc.ca.send('orders', { body: { ok: true } });
    await acc.ca.send('orders', { body: { ok: false } });
    await other.ca.send('orders', { body: { ok: true } });
    await eventually(async () => (await acc.ca.channel('orders')).body.result.dead_count === 1);
    await eventually(() => receiver.received.length === 4);
    // the receiver counts a request when it arrives, the pod its attempt when the answer does
    await eventually(async () =>
      /relayq_push_attempts_total\{result="success"\} 2/.test(
        await c.relay.metrics.registry.metrics(),
      ),
    );
    const text = await c.relay.metrics.registry.metrics();
    const labels = `account="${acc.id}",channel="orders"`;
    expect(text).toContain(`relayq_destination_attempts_total{${labels},result="success"} 1`);
    expect(text).toContain(`relayq_destination_attempts_total{${labels},result="http_5xx"} 2`);
    expect(text).toContain(`relayq_destination_duration_seconds_count{${labels}} 3`);
    expect(text).toContain(`relayq_channel_messages{${labels},state="dead"} 1`);
    // an account not listed has no series of its own
    expect(text).not.toContain(`account="${other.id}"`);
    expect(text).toMatch(/relayq_push_attempts_total\{result="success"\} 2/);
  } finally {
    await c.close();
    for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.start();
  }
});
