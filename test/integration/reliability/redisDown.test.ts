/**
 * Redis unavailable under a running service: stopped (connection refused) and
 * frozen (SIGSTOP: no answer). Every request answers 503 in the envelope within
 * a bounded time, readiness fails, the process stays up, open WebSockets stay
 * open; when Redis is back the service recovers by itself: requests, scripts
 * (NOSCRIPT after a restart), the sweeper and WebSocket events.
 */
import { ADMIN_TOKEN, accountWithToken, eventually } from '../../helpers/app';
import { RESUBSCRIBE_SPREAD_MS } from '../../../src/store/events';
import { OUTAGE_MESSAGE } from '../../helpers/outage';
import { startSingleRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { refusedUpgrade, subscribe, type Subscriber } from '../../helpers/ws';

jest.setTimeout(60_000);

let auth: string;
let socket: Subscriber | null = null;
// declared first, so that the socket closes before useRelay() closes the pod
afterAll(() => socket?.close());
const rq = useRelay({
  listen: true,
  env: { RELAY_SWEEP_INTERVAL_MS: '50' },
  flush: false,
  // Persistent (in the server's own --dir), so that the account and tokens survive the
  // restart of redis-server.
  redis: () => startSingleRedis(['--appendonly', 'yes']),
});

const UNAVAILABLE = {
  success: false,
  errors: [
    {
      code: 503,
      message: OUTAGE_MESSAGE,
    },
  ],
  messages: [],
  result: null,
};

const base = '/v1/relay/channels/orders/messages';

beforeAll(async () => {
  ({ auth } = await accountWithToken(rq.app, 'acme'));
});

type Call = [string, () => Promise<{ status: number; body: unknown }>];

function everyEndpoint(): Call[] {
  const h = rq.app.http;
  return [
    ['send', () => h.post(base).set('Authorization', auth).send({ body: 1 })],
    [
      'batch',
      () =>
        h
          .post(`${base}/batch`)
          .set('Authorization', auth)
          .send({ messages: [{ body: 1 }] }),
    ],
    ['pull', () => h.post(`${base}/pull`).set('Authorization', auth).send({})],
    [
      'ack',
      () =>
        h
          .post(`${base}/ack`)
          .set('Authorization', auth)
          .send({ lease_ids: ['x'] }),
    ],
    [
      'extend',
      () =>
        h
          .post(`${base}/extend`)
          .set('Authorization', auth)
          .send({ lease_ids: ['x'] }),
    ],
    ['list channels', () => h.get('/v1/relay/channels').set('Authorization', auth)],
    ['get channel', () => h.get('/v1/relay/channels/orders').set('Authorization', auth)],
    ['admin', () => h.get('/v1/admin/accounts/acme').set('Authorization', `Bearer ${ADMIN_TOKEN}`)],
  ];
}

/** Every endpoint answers the 503 envelope, each within 3 s. */
async function expectAllUnavailable(): Promise<void> {
  for (const [name, call] of everyEndpoint()) {
    const started = Date.now();
    const res = await call();
    const ms = Date.now() - started;
    expect({ name, status: res.status, body: res.body }).toEqual({
      name,
      status: 503,
      body: UNAVAILABLE,
    });
    expect(ms).toBeLessThan(3000);
  }
  const started = Date.now();
  const ready = await rq.app.http.get('/readyz');
  expect(Date.now() - started).toBeLessThan(3000);
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({
    success: false,
    errors: [{ code: 503, message: 'Redis is unreachable' }],
    messages: [],
    result: { status: 'redis_unavailable' },
  });
  const health = await rq.app.http.get('/healthz');
  expect(health.status).toBe(200);
}

async function expectAllWorking(): Promise<void> {
  await eventually(async () => (await rq.app.http.get('/readyz')).status === 200, 15_000, 100);
  const sent = await rq.app.http.post(base).set('Authorization', auth).send({ body: 'after' });
  expect(sent.status).toBe(200);
  const pulled = await rq.app.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 10 });
  expect(pulled.status).toBe(200);
  const messages = pulled.body.result.messages as { id: string; body: unknown; lease_id: string }[];
  expect(messages.map((m) => m.id)).toContain(sent.body.result.id);
  // A send answered 503 because a frozen Redis did not answer in time may have been
  // stored when it woke (docs/guarantees.md, "When Redis is unavailable"): only the
  // bodies the 503'd sends carried may be there besides this one.
  for (const m of messages) {
    if (m.id !== sent.body.result.id) expect(m.body).toBe(1);
  }
  const acked = await rq.app.http
    .post(`${base}/ack`)
    .set('Authorization', auth)
    .send({ lease_ids: messages.map((m) => m.lease_id) });
  expect(acked.body.result).toEqual({ acked_count: messages.length });
}

async function redisPid(): Promise<number> {
  const info = await rq.redis.client.info('server');
  return Number(/process_id:(\d+)/.exec(info)![1]);
}

test('a frozen Redis (SIGSTOP): 503 within the 2 s command timeout, never a hang; recovers on SIGCONT', async () => {
  const pid = await redisPid();
  process.kill(pid, 'SIGSTOP');
  try {
    await expectAllUnavailable();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  await expectAllWorking();
});

test('a stopped Redis: 503 at once, WebSockets stay open; after restart everything recovers by itself', async () => {
  socket = await subscribe(rq.app, `${base}/subscribe`, auth);

  await rq.redis.pause();
  await expectAllUnavailable();
  // A new subscription is refused with the 503 envelope before any upgrade.
  const refused = await refusedUpgrade(rq.app, `${base}/subscribe`, {
    Authorization: auth,
  });
  expect(refused.status).toBe(503);
  expect(refused.body).toEqual(UNAVAILABLE);
  // Long enough for several sweeper ticks and a token recheck to fail.
  await new Promise((r) => setTimeout(r, 1500));
  expect(socket.ws.readyState).toBe(socket.ws.OPEN);

  await rq.redis.resume();
  await expectAllWorking(); // scripts came back via EVAL after NOSCRIPT

  // Events flow again on the socket that stayed open (the subscriber resubscribed).
  socket.events.length = 0;
  await eventually(
    async () => {
      await rq.app.http.post(base).set('Authorization', auth).send({ body: 'ping' });
      return socket!.events.some((e) => e.type === 'new_message');
    },
    10_000,
    300,
  );
  expect(socket.events).toContainEqual({
    type: 'new_message',
    channelId: 'orders',
    at: expect.any(Number),
  });
  // The catch-up frames after the resubscription (spread over RESUBSCRIBE_SPREAD_MS from
  // it, which came before the frame just seen) are over before the lease below begins.
  await new Promise((r) => setTimeout(r, RESUBSCRIBE_SPREAD_MS + 100));

  // The sweeper works again: an expired lease is re-queued and announced without any send.
  await rq.app.http.post(`${base}/pull`).set('Authorization', auth).send({ batch_size: 100 });
  const sent = await rq.app.http.post(base).set('Authorization', auth).send({ body: 'lease' });
  const leasedAt = Date.now();
  const leased = await rq.app.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ visibility_timeout_ms: 1000 });
  expect(leased.body.result.messages.map((m: { id: string }) => m.id)).toEqual([
    sent.body.result.id,
  ]);
  await new Promise((r) => setTimeout(r, 300)); // let the send's own event arrive first
  socket.events.length = 0;
  // (the lease's end: the catch-up events from the resubscription are over)
  const arrivals: number[] = [];
  socket.ws.on('message', (data) => {
    if (String(data).includes('new_message')) arrivals.push(Date.now());
  });
  await eventually(() => arrivals.some((at) => at >= leasedAt + 950), 4000, 25);
  const again = await rq.app.http.post(`${base}/pull`).set('Authorization', auth).send({});
  expect(
    again.body.result.messages.map((m: { id: string; attempts: number }) => [m.id, m.attempts]),
  ).toEqual([[sent.body.result.id, 2]]);
  expect(socket.ws.readyState).toBe(socket.ws.OPEN);
});
