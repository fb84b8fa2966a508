/**
 * Coalesced new_message fan-out: at most one event per channel per window
 * leaves Redis, yet every send is followed by an event published no earlier
 * than it; sweeps that make nothing available publish nothing; a pending
 * announcement whose pod stopped is published by the sweeper.
 */
import {
  accountWithToken,
  eventually,
  sleep,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { closeClients, countEvents, newMessage, subscribe } from '../../helpers/ws';

let redis: TestRedis;
let pod: ListeningApp;
let slowPod: ListeningApp;

beforeAll(async () => {
  redis = await startRedis();
  pod = await startListeningApp(redis, { RELAY_FANOUT_WINDOW_MS: '50' });
  slowPod = await startListeningApp(redis, { RELAY_FANOUT_WINDOW_MS: '400' });
});
afterEach(async () => {
  await closeClients();
  await redis.flush();
});
afterAll(async () => {
  await closeClients();
  await pod?.close();
  await slowPod?.close();
  await redis?.stop();
});

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
  const { auth } = await accountWithToken(pod, 'acme');
  const sub = await subscribe(pod, path('orders'), auth);

  await Promise.all(Array.from({ length: 100 }, () => send(pod, auth, 'orders')));
  const pulled: { timestamp_ms: number }[] = [];
  while (pulled.length < 100) pulled.push(...(await pullAll(pod, auth, 'orders')));
  const lastStored = Math.max(...pulled.map((m) => m.timestamp_ms));

  await eventually(() => sub.events.some((e) => newMessage('orders')(e) && e.at >= lastStored));
  await sleep(300);
  const events = countEvents(sub.events, newMessage('orders'));
  expect(events).toBeGreaterThanOrEqual(1);
  expect(events).toBeLessThan(50);
});

test('a send in the middle of a window is followed by an event at the end of the window', async () => {
  const { auth } = await accountWithToken(slowPod, 'acme');
  const sub = await subscribe(slowPod, path('orders'), auth);

  await send(slowPod, auth, 'orders');
  const first = await sub.waitFor(newMessage('orders'));
  const secondSentAt = Date.now();
  await send(slowPod, auth, 'orders');
  const second = await sub.waitFor(newMessage('orders'), 5000, 1);
  // published when the 400 ms window opened by the first send ended, not at once
  expect(second.at).toBeGreaterThanOrEqual(secondSentAt);
  expect(second.at - first.at).toBeGreaterThanOrEqual(350);
  await sleep(600);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(2);
});

test('a pending announcement left by a pod that stopped is published by the sweeper', async () => {
  const { auth } = await accountWithToken(slowPod, 'acme');
  const sub = await subscribe(pod, path('orders'), auth);

  await send(slowPod, auth, 'orders');
  await sub.waitFor(newMessage('orders'));
  // as if the pod died after its send: neither its flush timers nor its sweeper run
  await slowPod.relay.sweeper.stop();
  slowPod.relay.context.fanout.stop();
  const secondSentAt = Date.now();
  await send(slowPod, auth, 'orders');
  const second = await sub.waitFor(newMessage('orders'), 5000, 1);
  expect(second.at).toBeGreaterThanOrEqual(secondSentAt);
});

test('a sweep that only forgets dedup ids and expires nothing new publishes no event', async () => {
  const { auth } = await accountWithToken(pod, 'acme');
  const put = await pod.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ dedup_window_seconds: 1 });
  expect(put.status).toBe(200);
  const sub = await subscribe(pod, path('orders'), auth);

  await send(pod, auth, 'orders', { dedup_id: 'a' });
  await sub.waitFor(newMessage('orders'));
  // the dedup id is forgotten by a sweep after about a second: no event for that
  await sleep(2500);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
  // and the dedup id is gone: the same id stores a new message
  const again = await send(pod, auth, 'orders', { dedup_id: 'a' });
  expect((await pullAll(pod, auth, 'orders')).length).toBe(2);
  expect(again).toMatch(/./);
});

test('a delayed message is announced once when its delay ends', async () => {
  const { auth } = await accountWithToken(pod, 'acme');
  const sub = await subscribe(pod, path('orders'), auth);
  const sentAt = Date.now();
  await send(pod, auth, 'orders', { delay_seconds: 1 });
  const event = await sub.waitFor(newMessage('orders'), 5000);
  expect(event.at - sentAt).toBeGreaterThanOrEqual(950);
  await sleep(1500);
  expect(countEvents(sub.events, newMessage('orders'))).toBe(1);
});

test('deleting a channel forgets its fan-out state', async () => {
  const { auth } = await accountWithToken(pod, 'acme');
  await send(pod, auth, 'orders');
  expect(await pod.redis.hexists('rq:{acme}:account', 'n:orders')).toBe(1);
  const res = await pod.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(res.status).toBe(200);
  expect(await pod.redis.hexists('rq:{acme}:account', 'n:orders')).toBe(0);
});
