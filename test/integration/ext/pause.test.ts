/**
 * Extension: pausing a channel (`"paused": true` on PUT /v1/relay/channels/{id}).
 * Sends are accepted, pulls answer none, long polls wait and wake on resume,
 * leases already out run their course, retention still applies, and WebSocket
 * subscribers get no new_message until resume, then one. Across two pods.
 */
import { sleep, startListeningApp, type ListeningApp } from '../../helpers/app';
import { closeClients, countEvents, newMessage, subscribe } from '../../helpers/ws';
import { accountOnPods, useTwoPods } from '../../helpers/pods';

const pods = useTwoPods<ListeningApp>(startListeningApp);
const setup = () => accountOnPods(pods, 'pause');
afterEach(closeClients);

test('a paused channel accepts sends, answers pulls with none, and delivers after resume', async () => {
  const { ca, cb } = await setup();
  const paused = await ca.configure('orders', { paused: true });
  expect(paused.status).toBe(200);
  expect(paused.body.result.config.paused).toBe(true);
  const id = await ca.sendOk('orders', { body: 'held' });
  const [b1, b2] = await cb.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
  const pulled = await cb.pullOk('orders', { batch_size: 10 });
  expect(pulled).toEqual({ message_backlog_count: 3, messages: [] });
  const stats = (await cb.channel('orders')).body.result;
  expect(stats).toMatchObject({ queued: 3, in_flight: 0 });
  expect(stats.config.paused).toBe(true);

  const resumed = await cb.configure('orders', { paused: false });
  expect(resumed.body.result.config.paused).toBe(false);
  const after = await ca.pullOk('orders', { batch_size: 10 });
  expect(after.messages.map((m) => m.id)).toEqual([id, b1, b2]);
});

test('a long poll on a paused channel waits, and wakes when another pod resumes it', async () => {
  const { ca, cb } = await setup();
  await ca.configure('orders', { paused: true });
  await ca.sendOk('orders', { body: 'waiting' });
  const start = Date.now();
  const waiting = ca.pullOk('orders', { wait_ms: 15000 });
  await sleep(500);
  // A send while paused does not wake it either.
  await cb.sendOk('orders', { body: 'also waiting' });
  await sleep(300);
  await cb.configure('orders', { paused: false });
  const result = await waiting;
  const ms = Date.now() - start;
  expect(result.messages.map((m) => m.body)).toEqual(['waiting', 'also waiting']);
  expect(ms).toBeGreaterThanOrEqual(700);
  expect(ms).toBeLessThan(10000);
});

test('a long poll that ends while paused answers none', async () => {
  const { ca } = await setup();
  await ca.configure('orders', { paused: true });
  await ca.sendOk('orders', { body: 'held' });
  const result = await ca.pullOk('orders', { wait_ms: 600 });
  expect(result).toEqual({ message_backlog_count: 1, messages: [] });
});

test('leases already out run their course: they can be acked, extended, and end unredelivered', async () => {
  const { ca, cb } = await setup();
  await ca.batchOk('orders', { messages: [{ body: 'acked' }, { body: 'lapses' }] });
  const out = await ca.pullOk('orders', { batch_size: 2, visibility_timeout_ms: 1000 });
  expect(out.messages).toHaveLength(2);
  await cb.configure('orders', { paused: true });
  expect(await ca.extendOk('orders', { lease_ids: [out.messages[0].lease_id] })).toBe(1);
  expect(await ca.ackOk('orders', { lease_ids: [out.messages[0].lease_id] })).toEqual({
    acked_count: 1,
  });
  // The other lease ends while paused: the message waits, not redelivered.
  await sleep(1300);
  expect((await cb.pullOk('orders')).messages).toEqual([]);
  const stats = (await cb.channel('orders')).body.result;
  expect(stats).toMatchObject({ queued: 1, in_flight: 0 });
  await cb.configure('orders', { paused: false });
  const again = await ca.pullOk('orders');
  expect(again.messages.map((m) => [m.body, m.attempts])).toEqual([['lapses', 2]]);
});

test('retention still applies while paused', async () => {
  const { ca } = await setup();
  await ca.configure('orders', { paused: true, retention_seconds: 1 });
  await ca.sendOk('orders', { body: 'expires' });
  const start = Date.now();
  let stats = (await ca.channel('orders')).body.result;
  while (stats.queued > 0 && Date.now() - start < 5000) {
    await sleep(100);
    stats = (await ca.channel('orders')).body.result;
  }
  expect(stats).toMatchObject({ queued: 0, storage_bytes: 0 });
  await ca.configure('orders', { paused: false });
  expect((await ca.pullOk('orders')).messages).toEqual([]);
});

test('WebSocket subscribers get no new_message while paused, then one on resume', async () => {
  const { auth, ca, cb } = await setup();
  const path = '/v1/relay/subscribe?channels=orders';
  const [onA, onB] = await Promise.all([
    subscribe(pods.a, path, auth),
    subscribe(pods.a, path, auth),
  ]);
  await ca.configure('orders', { paused: true });
  await ca.sendOk('orders', { body: 1 });
  await cb.sendOk('orders', { body: 2 });
  await cb.batchOk('orders', { messages: [{ body: 3 }, { body: 4 }] });
  // A delay ending while paused is not announced either.
  await cb.sendOk('orders', { body: 5, delay_seconds: 0.3 });
  await sleep(800);
  expect(countEvents(onA.events, newMessage('orders'))).toBe(0);
  expect(countEvents(onB.events, newMessage('orders'))).toBe(0);

  const resumedAt = onA.events.length;
  await cb.configure('orders', { paused: false });
  await onA.waitFor(newMessage('orders'), 5000, resumedAt);
  await onB.waitFor(newMessage('orders'), 5000);
  await sleep(300);
  expect(countEvents(onA.events, newMessage('orders'))).toBe(1);
  expect(countEvents(onB.events, newMessage('orders'))).toBe(1);
  // Resuming a channel that is not paused (or has nothing available) announces nothing.
  await cb.configure('orders', { paused: false });
  await sleep(300);
  expect(countEvents(onA.events, newMessage('orders'))).toBe(1);
});

test('a pause set on one pod holds for pulls on the other at once', async () => {
  const { ca, cb } = await setup();
  await ca.sendOk('orders', { body: 'x' });
  await ca.configure('orders', { paused: true });
  expect((await cb.pullOk('orders')).messages).toEqual([]);
  await ca.configure('orders', { paused: false });
  expect((await cb.pullOk('orders')).messages).toHaveLength(1);
});
