/**
 * The life of a connection: revoked, expired and deleted credentials close it
 * with 1008; shutdown closes it with 1001; a client that does not answer pings
 * is dropped; client frames are ignored and a flood of them is closed; a client
 * that does not read is closed with 1013 instead of being buffered without bound.
 */
import {
  ADMIN_TOKEN,
  accountWithToken,
  eventually,
  sleep,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { runServer } from '../../../src/server';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, newMessage, refusedUpgrade, subscribe, type Closed } from '../../helpers/ws';

// the safety check of open sockets' tokens, 60 s by default, shortened here
const rq = useRelay({ listen: true, env: { RELAY_WS_TOKEN_RECHECK_MS: '2000' } });
afterEach(() => closeClients());

const path = '/v1/relay/channels/orders/messages/subscribe';
const onSingleRedis = process.env.RELAYQ_TEST_TOPOLOGY === 'cluster' ? test.skip : test;

/** Connections the pod has closed with this code (relayq_websocket_closed_total). */
async function closedWith(pod: ListeningApp, code: string): Promise<number> {
  const metric = await pod.relay.metrics.wsClosed.get();
  return metric.values.find((v) => v.labels.code === code)?.value ?? 0;
}
const admin = `Bearer ${ADMIN_TOKEN}`;

describe('credentials', () => {
  test('revoking a token closes its connections with 1008 within 5 s, and only its own', async () => {
    const revoked = await accountWithToken(rq.app, 'acme');
    const kept = await accountWithToken(rq.app, 'acme');
    const a = await subscribe(rq.app, path, revoked.auth);
    const b = await subscribe(rq.app, '/v1/relay/subscribe?channels=orders,alerts', revoked.auth);
    const other = await subscribe(rq.app, path, kept.auth);

    const at = Date.now();
    const res = await rq.app.http
      .delete(`/v1/admin/accounts/acme/tokens/${revoked.tokenId}`)
      .set('Authorization', admin);
    expect(res.status).toBe(200);
    for (const sub of [a, b]) {
      const closed = await sub.closed;
      expect([closed.code, closed.reason]).toEqual([1008, 'token revoked']);
      expect(closed.at - at).toBeLessThan(5000);
    }
    await sleep(300);
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', kept.auth)
      .send({ body: 1 });
    await other.waitFor(newMessage('orders'));
  });

  test('a token removed without its revocation event is still caught by the safety check', async () => {
    const { auth, tokenId } = await accountWithToken(rq.app, 'acme');
    const sub = await subscribe(rq.app, path, auth);
    const at = Date.now();
    // As if the revocation event had been lost (e.g. this pod's subscription was reconnecting).
    await rq.app.redis.hdel('rq:{acme}:tokens', tokenId);
    const closed = await sub.closed;
    expect([closed.code, closed.reason]).toEqual([1008, 'token revoked']);
    expect(closed.at - at).toBeLessThan(3500);
  });

  // On a cluster the client's per-shard subscribers reconnect without a 'ready'
  // event the hub could see (docs/api/websocket.md), so this runs on one Redis.
  onSingleRedis(
    'a revocation missed while the event subscription was down is caught when it is back',
    async () => {
      const slow = await startListeningApp(rq.redis, { RELAY_WS_TOKEN_RECHECK_MS: '3600000' });
      try {
        const { auth, tokenId } = await accountWithToken(slow, 'acme');
        const sub = await subscribe(slow, path, auth);
        await rq.app.redis.hdel('rq:{acme}:tokens', tokenId);
        const checksBefore = slow.ws.tokenChecks();
        // drop the pods' subscriber connections: they reconnect and resubscribe
        await rq.redis.eachMaster((node) => node.client('KILL', 'TYPE', 'pubsub'));
        const closed = await sub.closed;
        expect([closed.code, closed.reason]).toEqual([1008, 'token revoked']);
        expect(slow.ws.tokenChecks()).toBe(checksBefore + 1);
      } finally {
        await slow.close();
      }
    },
  );

  test('a token that expires closes its connections with 1008 at its expiry', async () => {
    const issuedAt = Date.now();
    const { auth } = await accountWithToken(rq.app, 'acme', { expires_in_seconds: 2 });
    const sub = await subscribe(rq.app, path, auth);
    const closed = await sub.closed;
    expect([closed.code, closed.reason]).toEqual([1008, 'token expired']);
    expect(closed.at - issuedAt).toBeGreaterThanOrEqual(1900);
    expect(closed.at - issuedAt).toBeLessThan(4000);
  });

  test('deleting the account closes its connections with 1008', async () => {
    const { auth } = await accountWithToken(rq.app, 'acme');
    const sub = await subscribe(rq.app, path, auth);
    const res = await rq.app.http.delete('/v1/admin/accounts/acme').set('Authorization', admin);
    expect(res.status).toBe(200);
    const closed = await sub.closed;
    expect([closed.code, closed.reason]).toEqual([1008, 'account deleted']);
  });
});

test('shutdown: every connection closes with 1001 and new upgrades are refused with 503', async () => {
  const pod = await startListeningApp(rq.redis);
  try {
    const { auth } = await accountWithToken(pod, 'acme');
    const subs = await Promise.all([
      subscribe(pod, path, auth),
      subscribe(pod, '/v1/relay/subscribe?channels=orders', auth),
    ]);
    // What runServer does on SIGTERM.
    pod.relay.beginShutdown();
    pod.ws.closeAll(1001, 'server shutting down');
    for (const sub of subs) {
      const closed = await sub.closed;
      expect([closed.code, closed.reason]).toEqual([1001, 'server shutting down']);
    }
    const refused = await refusedUpgrade(pod, path, { Authorization: auth });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      success: false,
      errors: [{ code: 503, message: 'the server is shutting down; reconnect to another' }],
      messages: [],
      result: null,
    });
    await eventually(() => pod.ws.clientCount() === 0);
    expect(await closedWith(pod, '1001')).toBe(2);
  } finally {
    await pod.close();
  }
});

test('runServer shutdown (what SIGTERM runs): subscribers get 1001, then the server stops', async () => {
  const config = loadConfig({
    ...rq.redis.env,
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    LOG_LEVEL: 'silent',
    RELAY_SHUTDOWN_GRACE_MS: '5000',
  });
  const running = await runServer(config, pino({ level: 'silent' }));
  const pod = { baseUrl: `http://127.0.0.1:${running.port}` } as ListeningApp;
  const { auth } = await accountWithToken(rq.app, 'acme');
  const subs = await Promise.all([
    subscribe(pod, path, auth),
    subscribe(pod, '/v1/relay/subscribe?channels=orders,alerts', auth),
  ]);
  const stopped = running.shutdown();
  for (const sub of subs) {
    const closed = await sub.closed;
    expect([closed.code, closed.reason]).toEqual([1001, 'server shutting down']);
  }
  await stopped;
  expect(running.server.listening).toBe(false);
});

test('heartbeat: a client that answers pings stays; one that does not is terminated', async () => {
  const pod = await startListeningApp(rq.redis, { RELAY_WS_PING_INTERVAL_MS: '200' });
  try {
    const { auth } = await accountWithToken(pod, 'acme');
    const answering = await subscribe(pod, path, auth);
    const silent = await subscribe(pod, path, auth, { autoPong: false });
    let pings = 0;
    answering.ws.on('ping', () => pings++);
    let silentPings = 0;
    silent.ws.on('ping', () => silentPings++);

    const closed = await silent.closed;
    // Terminated (no close frame): 1006 on the client.
    expect(closed.code).toBe(1006);
    expect(silentPings).toBeGreaterThanOrEqual(1);
    await sleep(800);
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(answering.ws.readyState).toBe(answering.ws.OPEN);
    expect(pod.ws.clientCount()).toBe(1);
    expect(await closedWith(pod, '1006')).toBe(1);
  } finally {
    await closeClients();
    await pod.close();
  }
});

describe('client frames', () => {
  test('are ignored: no reply, the connection stays open and keeps receiving events', async () => {
    const { auth } = await accountWithToken(rq.app, 'acme');
    const sub = await subscribe(rq.app, path, auth);
    sub.ws.send('hello');
    sub.ws.send(JSON.stringify({ type: 'subscribe', channelId: 'alerts' }));
    sub.ws.send(Buffer.from([1, 2, 3]));
    await sleep(500);
    expect(sub.events).toEqual([]);
    expect(sub.ws.readyState).toBe(sub.ws.OPEN);
    await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', auth)
      .send({ body: 1 });
    await sub.waitFor(newMessage('orders'));
    expect(sub.events).toHaveLength(1);
  });

  test('a flood of frames is closed with 1008', async () => {
    const { auth } = await accountWithToken(rq.app, 'acme');
    const sub = await subscribe(rq.app, path, auth);
    for (let i = 0; i < 200; i++) sub.ws.send(`frame ${i}`);
    const closed = await sub.closed;
    expect([closed.code, closed.reason]).toEqual([1008, 'too many frames from the client']);
    await eventually(() => rq.app.ws.clientCount() === 0);
  });

  test('an oversized frame is closed with 1009', async () => {
    const { auth } = await accountWithToken(rq.app, 'acme');
    const sub = await subscribe(rq.app, path, auth);
    sub.ws.send('x'.repeat(5000));
    const closed = await sub.closed;
    expect(closed.code).toBe(1009);
  });
});

test('back-pressure: a client that does not read is closed with 1013, not buffered without bound', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  // Long channel ids make big events, so that fewer of them fill the buffers.
  const channel = 'c'.repeat(128);
  const slow = await subscribe(rq.app, `/v1/relay/channels/${channel}/messages/subscribe`, auth);
  const reader = await subscribe(rq.app, path, auth);
  slow.ws.pause();

  // Events straight onto the account's event channel, as the scripts publish them
  // (about 170 bytes each on the wire), in rounds until the pod reports the slow
  // client closed: the kernel's socket buffers take a few MB first. Unbounded
  // buffering would never close it.
  const CAP = 100_000;
  const eventKey = 'rq:{acme}:events';
  let published = 0;
  while ((await closedWith(rq.app, '1013')) === 0 && published < CAP) {
    const batch = rq.app.redis.pipeline();
    for (let i = 0; i < 5_000; i++) batch.spublish(eventKey, `n ${channel}`);
    await batch.exec();
    published += 5_000;
    // Events reach the pod in order on one subscription: once the reader hears
    // this one, the pod has handled every event above.
    const from = reader.events.length;
    await rq.app.redis.spublish(eventKey, 'n orders');
    await reader.waitFor(newMessage('orders'), 20_000, from);
  }
  expect(await closedWith(rq.app, '1013')).toBe(1);

  slow.ws.resume();
  let closed: Closed | null = null;
  void slow.closed.then((c) => (closed = c));
  // Unbounded buffering would deliver every event and never close.
  await eventually(() => closed !== null || slow.events.length >= published, 20_000);
  expect(slow.events.length).toBeGreaterThan(0);
  // Everything after the close was dropped, not buffered.
  expect(slow.events.length).toBeLessThan(published);
  expect(closed).toEqual({
    code: 1013,
    reason: 'client is not reading; try again later',
    at: expect.any(Number),
  });
  // The other connection of the same account and pod is unaffected.
  expect(reader.ws.readyState).toBe(reader.ws.OPEN);
}, 45_000);
