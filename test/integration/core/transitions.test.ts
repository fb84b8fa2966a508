/**
 * Every row of the life-cycle table in docs/api/messages.md, with short timeouts,
 * and message_backlog_count after each kind of transition.
 */
import { eventually, sleep } from '../../helpers/app';
import { UUID } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme' });

const VT = 1000;

async function storageBytes(account = 'acme'): Promise<number> {
  return (await rq.app.relay.store.accounts.get(account))!.usage.storage_bytes;
}

test('send -> queued: an id is returned and the message is available at once', async () => {
  const id = await rq.client.sendOk('orders', { body: { n: 1 } });
  expect(id).toMatch(UUID);
  const pulled = await rq.client.pullOk('orders');
  expect(pulled.messages.map((m) => m.id)).toEqual([id]);
  expect(pulled.messages[0].attempts).toBe(1);
});

test('delay_seconds 0 is the same as no delay', async () => {
  const id = await rq.client.sendOk('orders', { body: 1, delay_seconds: 0 });
  expect((await rq.client.pullOk('orders')).messages.map((m) => m.id)).toEqual([id]);
});

test('a delayed send is invisible until the delay ends, then available', async () => {
  const sentAt = Date.now();
  const id = await rq.client.sendOk('orders', { body: 'later', delay_seconds: 1 });
  const early = await rq.client.pullOk('orders');
  expect(early).toEqual({ message_backlog_count: 1, messages: [] });
  let got: string[] = [];
  await eventually(async () => {
    got = (await rq.client.pullOk('orders')).messages.map((m) => m.id);
    return got.length > 0;
  }, 4000);
  expect(got).toEqual([id]);
  // Redis and this process share a clock here; allow a little rounding.
  expect(Date.now() - sentAt).toBeGreaterThanOrEqual(950);
});

test('a fractional delay is honoured (rounded to milliseconds)', async () => {
  const sentAt = Date.now();
  await rq.client.sendOk('orders', { body: 1, delay_seconds: 1.5 });
  await sleep(700);
  expect((await rq.client.pullOk('orders')).messages).toHaveLength(0);
  await eventually(async () => (await rq.client.pullOk('orders')).messages.length === 1, 4000);
  expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1450);
});

test('pull leases: the message is hidden while in flight, with a lease and attempts 1', async () => {
  await rq.client.sendOk('orders', { body: 1 });
  const first = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  expect(first.messages).toHaveLength(1);
  expect(first.messages[0].attempts).toBe(1);
  expect(typeof first.messages[0].lease_id).toBe('string');
  expect(first.message_backlog_count).toBe(1);
  const second = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  expect(second).toEqual({ message_backlog_count: 1, messages: [] });
});

test('ack inside the lease deletes the message permanently and frees its storage', async () => {
  await rq.client.sendOk('orders', { body: 'x' });
  expect(await storageBytes()).toBe(5); // "x" (3) + {} (2)
  const pulled = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  const res = await rq.client.ack('orders', [pulled.messages[0].lease_id]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true, errors: [], messages: [], result: { acked_count: 1 } });
  expect(await storageBytes()).toBe(0);
  await sleep(VT + 300);
  expect(await rq.client.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  expect(await rq.redis.keys('rq:{acme}:c:orders:m')).toEqual([]);
});

test('no ack: the message is re-queued when its lease ends, attempts incremented, new lease', async () => {
  const id = await rq.client.sendOk('orders', { body: 1 });
  const first = (await rq.client.pullOk('orders', { visibility_timeout_ms: VT })).messages[0];
  const leasedAt = Date.now();
  let again: Awaited<ReturnType<typeof rq.client.pullOk>> = {
    message_backlog_count: 0,
    messages: [],
  };
  await eventually(async () => {
    again = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
    return again.messages.length > 0;
  }, 4000);
  expect(Date.now() - leasedAt).toBeGreaterThanOrEqual(950);
  expect(again.messages[0].id).toBe(id);
  expect(again.messages[0].attempts).toBe(2);
  expect(again.messages[0].lease_id).not.toBe(first.lease_id);
  expect(again.message_backlog_count).toBe(1);
});

test('the sweeper re-queues an ended lease without a pull (backlog still counts it)', async () => {
  await rq.client.sendOk('orders', { body: 1 });
  await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  await eventually(async () => (await rq.redis.keys('rq:{acme}:c:orders:f')).length === 0, 4000);
  expect(await rq.redis.keys('rq:{acme}:c:orders:q')).toEqual(['rq:{acme}:c:orders:q']);
  const pulled = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
  expect(pulled.messages[0].attempts).toBe(2);
});

test('after the 3rd delivery ends unacked the message is discarded: no 4th delivery', async () => {
  const id = await rq.client.sendOk('orders', { body: 'doomed' });
  for (let attempt = 1; attempt <= 3; attempt++) {
    let got: Awaited<ReturnType<typeof rq.client.pullOk>> | null = null;
    await eventually(async () => {
      const r = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
      if (r.messages.length > 0) got = r;
      return got !== null;
    }, 4000);
    expect(got!.messages[0].id).toBe(id);
    expect(got!.messages[0].attempts).toBe(attempt);
    expect(got!.message_backlog_count).toBe(1);
  }
  // The 3rd lease ends; the sweeper discards it and frees its storage.
  await eventually(async () => (await storageBytes()) === 0, 4000);
  expect(await rq.redis.keys('rq:{acme}:c:orders:*')).toEqual([]);
  await sleep(500);
  expect(await rq.client.pullOk('orders', { visibility_timeout_ms: VT })).toEqual({
    message_backlog_count: 0,
    messages: [],
  });
});

test('a pull right after the 3rd lease ends discards it rather than delivering it', async () => {
  const stopped = rq.app.relay.sweeper.stop();
  await stopped;
  try {
    await rq.client.sendOk('orders', { body: 1 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const r = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
      expect(r.messages.map((m) => [m.body, m.attempts])).toEqual([[1, attempt]]);
      await sleep(VT + 200);
    }
    // The 3rd lease has ended and no sweeper ran: the pull discards it instead of a 4th delivery.
    expect(await rq.redis.keys('rq:{acme}:c:orders:f')).toEqual(['rq:{acme}:c:orders:f']);
    const r = await rq.client.pullOk('orders', { visibility_timeout_ms: VT });
    expect(r).toEqual({ message_backlog_count: 0, messages: [] });
    expect(await storageBytes()).toBe(0);
  } finally {
    rq.app.relay.sweeper.start();
  }
});

test('message_backlog_count: queued, delayed and in flight count; acked and discarded do not', async () => {
  await rq.client.sendOk('orders', { body: 'a' });
  await rq.client.sendOk('orders', { body: 'b' });
  await rq.client.sendOk('orders', { body: 'c', delay_seconds: 60 });
  // a in flight, b queued, c delayed
  let r = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 60_000 });
  expect(r.messages.map((m) => m.body)).toEqual(['a']);
  expect(r.message_backlog_count).toBe(3);
  // acked: a is gone
  expect(await rq.client.ackOk('orders', [r.messages[0].lease_id])).toBe(1);
  r = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: VT });
  expect(r.messages.map((m) => m.body)).toEqual(['b']);
  expect(r.message_backlog_count).toBe(2);
  // b in flight, c delayed: nothing to pull, both still counted
  r = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: VT });
  expect(r).toEqual({ message_backlog_count: 2, messages: [] });
  // b's deliveries 2 and 3 (re-queued counts too), then discarded
  for (let attempt = 2; attempt <= 3; attempt++) {
    await eventually(async () => {
      r = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: VT });
      return r.messages.length > 0;
    }, 4000);
    expect(r.messages.map((m) => [m.body, m.attempts])).toEqual([['b', attempt]]);
    expect(r.message_backlog_count).toBe(2);
  }
  await sleep(VT + 300);
  r = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: VT });
  expect(r).toEqual({ message_backlog_count: 1, messages: [] });
  expect(await storageBytes()).toBe(5); // only "c" + {} left
});

test('pulling an unknown channel: empty batch, backlog 0, and the channel is not created', async () => {
  expect(await rq.client.pullOk('nowhere')).toEqual({ message_backlog_count: 0, messages: [] });
  expect(await rq.redis.keys('rq:{acme}:c:nowhere:*')).toEqual([]);
  const channels = await rq.app.relay.store.channels.list('acme');
  expect(channels).toEqual([]);
  expect(await rq.client.ackOk('nowhere', ['0'.repeat(34)])).toBe(0);
});
