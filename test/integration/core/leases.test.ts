/** Ack and leases: which lease ids delete, which are ignored, and acked_count. */
import { eventually, sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme' });

const VT = 1000;

async function sendAndPull(n: number, visibility = 60_000) {
  await rq.client.batch('orders', { messages: Array.from({ length: n }, (_, i) => ({ body: i })) });
  return (await rq.client.pullOk('orders', { batch_size: n, visibility_timeout_ms: visibility }))
    .messages;
}

test('lease ids are opaque, unguessable and distinct per delivery', async () => {
  const ms = await sendAndPull(5);
  const leases = ms.map((m) => m.lease_id);
  expect(new Set(leases).size).toBe(5);
  for (const lease of leases) expect(lease.length).toBeGreaterThanOrEqual(22);
});

test('acked_count counts only the messages this call deleted', async () => {
  const ms = await sendAndPull(3);
  expect(await rq.client.ackOk('orders', [ms[0].lease_id, ms[2].lease_id])).toBe(2);
  const left = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  expect(left).toEqual({ message_backlog_count: 1, messages: [] });
  expect(await rq.client.ackOk('orders', [ms[1].lease_id])).toBe(1);
  expect((await rq.client.pullOk('orders')).message_backlog_count).toBe(0);
});

test('unknown lease ids are ignored: no error, not counted', async () => {
  const [m] = await sendAndPull(1);
  const unknown = [
    'x',
    '',
    m.lease_id.slice(0, -1) + (m.lease_id.endsWith('A') ? 'B' : 'A'), // right message, wrong nonce
    '0'.repeat(m.lease_id.length),
    m.lease_id + 'x',
  ];
  const res = await rq.client.ack('orders', unknown);
  expect(res.status).toBe(200);
  expect(res.body.result).toEqual({ acked_count: 0 });
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
});

test('a duplicate lease id in one call is counted once', async () => {
  const [m] = await sendAndPull(1);
  expect(await rq.client.ackOk('orders', [m.lease_id, m.lease_id, m.lease_id])).toBe(1);
});

test('an already-acked lease id is ignored', async () => {
  const [m] = await sendAndPull(1);
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(0);
});

test('a late ack with the current lease (after the timeout, before a re-pull) deletes', async () => {
  const [m] = await sendAndPull(1, VT);
  // wait until the sweeper has re-queued it: the lease has ended for sure
  await eventually(async () => (await rq.redis.keys('rq:{acme}:c:orders:f')).length === 0, 4000);
  await sleep(100);
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
  expect(await rq.client.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
});

test('after a re-pull the old lease is stale: ignored, and the new lease deletes', async () => {
  const [first] = await sendAndPull(1, VT);
  let again: Awaited<ReturnType<typeof rq.client.pullOk>>['messages'] = [];
  await eventually(async () => {
    again = (await rq.client.pullOk('orders', { visibility_timeout_ms: 60_000 })).messages;
    return again.length > 0;
  }, 4000);
  expect(again[0].id).toBe(first.id);
  expect(await rq.client.ackOk('orders', [first.lease_id])).toBe(0);
  // still there, still in flight under the new lease
  expect(await rq.client.pullOk('orders')).toEqual({ message_backlog_count: 1, messages: [] });
  expect(await rq.client.ackOk('orders', [first.lease_id, again[0].lease_id])).toBe(1);
  expect((await rq.client.pullOk('orders')).message_backlog_count).toBe(0);
});

test('a lease acknowledges only in its own channel', async () => {
  const [m] = await sendAndPull(1);
  await rq.client.sendOk('other', { body: 'x' });
  expect(await rq.client.ackOk('other', [m.lease_id])).toBe(0);
  expect(await rq.client.ackOk('unknown-channel', [m.lease_id])).toBe(0);
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
});

test('ack of a discarded message is ignored', async () => {
  await rq.client.sendOk('orders', { body: 1 });
  let lease = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    await eventually(async () => {
      const r = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
      if (r.messages.length > 0) lease = r.messages[0].lease_id;
      return r.messages.length > 0;
    }, 4000);
  }
  await eventually(async () => (await rq.redis.keys('rq:{acme}:c:orders:m')).length === 0, 4000);
  expect(await rq.client.ackOk('orders', [lease])).toBe(0);
});
