/**
 * Coalesced new_message fan-out: the first send of a burst and a send to a
 * drained channel are announced at once; sends to a channel whose messages
 * were already announced give at most one trailing event per window, yet every
 * send is followed by an event published no earlier than it; sweeps that make
 * nothing available publish nothing; a pending announcement whose pod stopped
 * is published by the sweeper.
 */
import {
  accountWithToken,
  eventually,
  sleep,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, countEvents, newMessage, subscribe } from '../../helpers/ws';

// pod a fans out after a 50 ms window, pod b after 400 ms
const rq = useRelay({
  pods: 2,
  start: (redis, pod) =>
    startListeningApp(redis, { RELAY_FANOUT_WINDOW_MS: pod === 0 ? '50' : '400' }),
});
afterEach(() => closeClients());

const path = (channel: string) => `/v1/relay/channels/${channel}/messages/subscribe`;

async function send(app: ListeningApp, auth: string, channel: string, extra: object = {}) {
  const res = await app.http
    .post(`/v1/relay/channels/${channel}/messages`)
    .set('Authorization', auth)
    .send({ body: 1, ...extra });
  expect(res.status).toBe(200);
  return res.body.result.id as string;
}

async function pullAll(app: ListeningApp, auth: string, channel: string) {
  const res = await app.http
    .post(`/v1/relay/channels/${channel}/messages/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 100 });
  expect(res.status).toBe(200);
  return res.body.result.messages as { timestamp_ms: number; lease_id: string }[];
}

test('a burst of 100 sends gives far fewer than 100 events, the last one after the last send', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const sub = await subscribe(rq.a, path('orders'), auth);

  await Promise.all(Array.from({ length: 100 }, () => send(rq.a, auth, 'orders')));
  const pulled: { timestamp_ms: number }[] = [];
  while (pulled.length < 100) pulled.push(...(await pullAll(rq.a, auth, 'orders')));
  const lastStored = Math.max(...pulled.map((m) => m.timestamp_ms));

  await eventually(() => sub.events.some((e) => newMessage('orders')(e) && e.at >= lastStored));
  await sleep(300);
  const events = countEvents(sub.events, newMessage('orders'));
  expect(events).toBeGreaterThanOrEqual(1);
  expect(events).toBeLessThan(50);
});

// A window so long that an event within a few seconds can only be a prompt one
// (its own pod: a sweep on it would hold other tests' pending events that long).
describe('with a 10 s window', () => {
  let longPod: ListeningApp;
  beforeAll(async () => {
    longPod = await startListeningApp(rq.redis, { RELAY_FANOUT_WINDOW_MS: '10000' });
  });
  afterAll(async () => {
    await closeClients();
    await longPod?.close();
  });

  test('a burst of sends is announced once, at once; the trailing event waits for the window', async () => {
    const { auth } = await accountWithToken(longPod, 'acme');
    const sub = await subscribe(longPod, path('orders'), auth);

    await Promise.all(Array.from({ length: 20 }, () => send(longPod, auth, 'orders')));
    // well before the 10 s window ends
    await sub.waitFor(newMessage('orders'), 5000);
    await sleep(300);
    expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
  });

  test('a send to a drained channel is announced at once, inside the window', async () => {
    const { auth } = await accountWithToken(longPod, 'acme');
    const sub = await subscribe(longPod, path('orders'), auth);

    for (let round = 1; round <= 3; round++) {
      const sentAt = Date.now();
      await send(longPod, auth, 'orders');
      const event = await sub.waitFor(newMessage('orders'), 5000, round - 1);
      expect(event.at).toBeGreaterThanOrEqual(sentAt);
      expect(await pullAll(longPod, auth, 'orders')).toHaveLength(1);
    }
    await sleep(300);
    expect(countEvents(sub.events, newMessage('orders'))).toBe(3);
  });

  test('a send to a channel that still has an announced message waits for the trailing event', async () => {
    const { auth } = await accountWithToken(longPod, 'acme');
    const sub = await subscribe(longPod, path('orders'), auth);

    await send(longPod, auth, 'orders');
    await sub.waitFor(newMessage('orders'));
    await send(longPod, auth, 'orders');
    await sleep(1000);
    // the subscriber was told of the first message, which is still there
    expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
    expect(await longPod.redis.hget('rq:{acme}:account', 'n:orders')).toMatch(/\|1$/);
  });
});

test('a send in the middle of a window is followed by an event at the end of the window', async () => {
  const { auth } = await accountWithToken(rq.b, 'acme');
  const sub = await subscribe(rq.b, path('orders'), auth);

  await send(rq.b, auth, 'orders');
  const first = await sub.waitFor(newMessage('orders'));
  const secondSentAt = Date.now();
  await send(rq.b, auth, 'orders');
  const second = await sub.waitFor(newMessage('orders'), 5000, 1);
  // published when the 400 ms window opened by the first send ended, not at once
  expect(second.at).toBeGreaterThanOrEqual(secondSentAt);
  expect(second.at - first.at).toBeGreaterThanOrEqual(350);
  await sleep(600);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(2);
});

test('a pending announcement left by a pod that stopped is published by the sweeper', async () => {
  const { auth } = await accountWithToken(rq.b, 'acme');
  const sub = await subscribe(rq.a, path('orders'), auth);

  await send(rq.b, auth, 'orders');
  await sub.waitFor(newMessage('orders'));
  // as if the pod died after its send: neither its flush timers nor its sweeper run
  await rq.b.relay.sweeper.stop();
  rq.b.relay.context.fanout.stop();
  const secondSentAt = Date.now();
  await send(rq.b, auth, 'orders');
  const second = await sub.waitFor(newMessage('orders'), 5000, 1);
  expect(second.at).toBeGreaterThanOrEqual(secondSentAt);
});

test('a sweep that only forgets dedup ids and expires nothing new publishes no event', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const put = await rq.a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dedup_window_seconds: 1 });
  expect(put.status).toBe(200);
  const sub = await subscribe(rq.a, path('orders'), auth);

  await send(rq.a, auth, 'orders', { dedup_id: 'a' });
  await sub.waitFor(newMessage('orders'));
  // the dedup id is forgotten by a sweep after about a second: no event for that
  await sleep(2500);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
  // and the dedup id is gone: the same id stores a new message
  const again = await send(rq.a, auth, 'orders', { dedup_id: 'a' });
  expect((await pullAll(rq.a, auth, 'orders')).length).toBe(2);
  expect(again).toMatch(/./);
});

test('a delayed message is announced once when its delay ends', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const sub = await subscribe(rq.a, path('orders'), auth);
  const sentAt = Date.now();
  await send(rq.a, auth, 'orders', { delay_seconds: 1 });
  const event = await sub.waitFor(newMessage('orders'), 5000);
  expect(event.at - sentAt).toBeGreaterThanOrEqual(950);
  await sleep(1500);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
});

test('deleting a channel forgets its fan-out state', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  await send(rq.a, auth, 'orders');
  expect(await rq.a.redis.hexists('rq:{acme}:account', 'n:orders')).toBe(1);
  const res = await rq.a.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(res.status).toBe(200);
  expect(await rq.a.redis.hexists('rq:{acme}:account', 'n:orders')).toBe(0);
});
