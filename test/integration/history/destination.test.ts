/**
 * History of a channel with a push destination (issue 28): a message the destination holds
 * (taken, its request not answered yet) shows in_flight, as a pulled one does, and pending
 * again once its attempt failed and waits for its retry.
 */
import { eventually, startApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { startReceiver, type Receiver } from '../destinations/receiver';

const rq = useRelay({
  account: 'hd',
  start: (redis) => startApp(redis, { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true' }),
});

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
  Object.assign(rq.app.relay.deliveries!.options, { pollMs: 100, allowPrivate: true });
});
afterEach(async () => {
  await receiver.close();
});

const statusOf = async (id: string, query = '') => {
  const res = await rq.http
    .get(`/v1/relay/channels/orders/history/${id}${query}`)
    .set('Authorization', rq.auth);
  expect(res.status).toBe(200);
  return res.body.result as { status: string; attempts: number; timeline: { type: string }[] };
};
const listed = async (status: string) => {
  const res = await rq.http
    .get(`/v1/relay/channels/orders/history?status=${status}`)
    .set('Authorization', rq.auth);
  expect(res.status).toBe(200);
  return (res.body.result.items as { id: string }[]).map((i) => i.id);
};

test('a message held by a push destination is in_flight, pending while it waits to retry', async () => {
  const on = await rq.client.configure('orders', { history_seconds: 3600 });
  expect(on.status).toBe(200);
  const made = await rq.http
    .post('/v1/relay/channels/orders/destinations')
    .set('Authorization', rq.auth)
    .send({ url: receiver.url, retry: { schedule_seconds: [30], max_attempts: 3 } });
  expect(made.status).toBe(200);
  let answered = 0;
  receiver.answer = () => (answered++ === 0 ? { status: 500, delayMs: 1500 } : { status: 200 });
  const id = await rq.client.sendOk('orders', { body: { n: 1 } });

  // taken: its request is on its way (the receiver holds the answer)
  await eventually(async () => receiver.inFlight === 1, 10_000);
  expect(await statusOf(id)).toMatchObject({ status: 'in_flight', attempts: 0 });
  expect(await listed('in_flight')).toEqual([id]);
  expect(await listed('pending')).toEqual([]);

  // answered 500: the attempt is in the timeline, the retry waits 30 s
  await eventually(async () => (await statusOf(id)).attempts === 1, 10_000);
  const d = await statusOf(id);
  expect(d.status).toBe('pending');
  expect(d.timeline.map((t) => t.type)).toEqual(['received', 'delivery', 'retry']);
  expect(await listed('pending')).toEqual([id]);
});
