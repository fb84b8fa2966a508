/**
 * Every new_message event says how many messages it announces ('n <channel> <count>'), so
 * that each pod wakes as many long polls as can be served: a send or an ack's retries
 * count the messages they made available now, a redrive those it moved, a release those
 * given back; a resume, a sweep and the coalesced trailing announcement count what is
 * available when they publish (0 when the consumers took everything meanwhile).
 */
import { eventually, sleep } from '../../helpers/app';
import { path } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';
import type { AccountEvent } from '../../../src/store/events';

const WINDOW_MS = 400;
const rq = useRelay({ account: 'acme', env: { RELAY_FANOUT_WINDOW_MS: String(WINDOW_MS) } });

/** The counts of the channel's new_message events, as this pod's hub hears them. */
async function listen(channel: string) {
  const counts: (number | undefined)[] = [];
  const off = await rq.app.relay.events.subscribe(rq.accountId, (e: AccountEvent) => {
    if (e.kind === 'new_message' && e.channel === channel) counts.push(e.count);
  });
  return { counts, off };
}

const send = (channel: string, messages: object[]) =>
  rq.http
    .post(path(channel, '/batch'))
    .set('Authorization', rq.auth)
    .send({ messages })
    .expect(200);

async function pull(channel: string, batch_size: number): Promise<string[]> {
  const { messages } = await rq.client.pullOk(channel, { batch_size });
  return messages.map((m) => m.lease_id);
}

test('a send counts the messages it made available now (not the delayed ones)', async () => {
  const ev = await listen('orders');
  await send('orders', [{ body: 1 }, { body: 2 }, { body: 3, delay_seconds: 60 }]);
  await eventually(() => ev.counts.length === 1);
  expect(ev.counts).toEqual([2]);
  ev.off();
});

test('the coalesced trailing announcement counts what is still available, 0 once taken', async () => {
  const ev = await listen('orders');
  await send('orders', [{ body: 1 }]);
  await eventually(() => ev.counts.length === 1);
  // not drained, inside the window: pending, announced at the window's end
  await send('orders', [{ body: 2 }, { body: 3 }]);
  await eventually(() => ev.counts.length === 2, 5000);
  expect(ev.counts).toEqual([1, 3]);

  // drained at once: announced at once; then a pending one whose messages are taken first
  await pull('orders', 100);
  await send('orders', [{ body: 4 }]);
  await send('orders', [{ body: 5 }]);
  expect(await pull('orders', 100)).toHaveLength(2);
  await eventually(() => ev.counts.length === 4, 5000);
  expect(ev.counts).toEqual([1, 3, 1, 0]);
  ev.off();
});

test('retries with no delay count themselves; a release counts the leases given back', async () => {
  await send('orders', [{ body: 1 }, { body: 2 }, { body: 3 }]);
  const leases = await pull('orders', 3);
  await sleep(WINDOW_MS + 100);
  const ev = await listen('orders');
  const res = await rq.http
    .post(path('orders', '/ack'))
    .set('Authorization', rq.auth)
    .send({
      retries: [
        { lease_id: leases[0], delay_seconds: 0 },
        { lease_id: leases[1], delay_seconds: 0 },
        { lease_id: leases[2], delay_seconds: 60 },
      ],
    })
    .expect(200);
  expect(res.body.result.retried_count).toBe(3);
  await eventually(() => ev.counts.length === 1);
  expect(ev.counts).toEqual([2]);

  const again = await pull('orders', 2);
  expect(again).toHaveLength(2);
  expect(await rq.app.relay.store.queue.release(rq.accountId, 'orders', again)).toBe(2);
  await eventually(() => ev.counts.length === 2);
  expect(ev.counts).toEqual([2, 2]);
  ev.off();
});

test('a redrive counts the messages it moved; a resume and a sweep what is available', async () => {
  const configure = (channel: string, body: object) =>
    rq.http
      .put(`/v1/relay/channels/${channel}`)
      .set('Authorization', rq.auth)
      .send(body)
      .expect(200);
  await configure('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' });
  await send('orders', [{ body: 1 }, { body: 2 }]);
  const leases = await pull('orders', 2);
  await rq.http
    .post(path('orders', '/ack'))
    .set('Authorization', rq.auth)
    .send({ retries: leases.map((lease_id) => ({ lease_id })) })
    .expect(200);
  await configure('orders', { paused: true });
  const ev = await listen('orders');
  const moved = await rq.http
    .post(path('orders-dlq', '/redrive'))
    .set('Authorization', rq.auth)
    .send({})
    .expect(200);
  expect(moved.body.result.moved_count).toBe(2);
  // paused: the redrive is silent; the resume announces both
  await sleep(200);
  expect(ev.counts).toEqual([]);
  await configure('orders', { paused: false });
  await eventually(() => ev.counts.length === 1);
  expect(ev.counts).toEqual([2]);

  const dlq = await listen('orders-dlq');
  await send('orders-dlq', [{ body: 3 }]);
  await pull('orders-dlq', 1);
  await rq.http
    .post(path('orders', '/redrive'))
    .set('Authorization', rq.auth)
    .send({ to: 'orders-dlq' })
    .expect(200);
  await eventually(() => dlq.counts.length === 2);
  expect(dlq.counts).toEqual([1, 2]);

  // a delay that ends is announced by the sweep, counting every available message
  await sleep(WINDOW_MS + 100);
  const later = await listen('later');
  await send('later', [{ body: 1 }, { body: 2, delay_seconds: 1 }]);
  await eventually(() => later.counts.length === 2, 5000);
  expect(later.counts).toEqual([1, 2]);
  for (const l of [ev, dlq, later]) l.off();
});
