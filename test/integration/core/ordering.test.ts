/** Pull order (oldest-available first, then send order) and the shape of a pulled message. */
import { eventually, sleep } from '../../helpers/app';
import { UUID } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme' });

test('send order, batch order preserved, across sends and batches', async () => {
  await rq.client.sendOk('orders', { body: 'a' });
  await rq.client.batch('orders', { messages: [{ body: 'b' }, { body: 'c' }, { body: 'd' }] });
  await rq.client.sendOk('orders', { body: 'e' });
  await rq.client.batch('orders', { messages: [{ body: 'f' }, { body: 'g' }] });
  const first = await rq.client.pullOk('orders', { batch_size: 4 });
  const rest = await rq.client.pullOk('orders', { batch_size: 10 });
  expect([...first.messages, ...rest.messages].map((m) => m.body)).toEqual([
    'a',
    'b',
    'c',
    'd',
    'e',
    'f',
    'g',
  ]);
});

test('oldest-available first: a delayed message comes after those available before it', async () => {
  await rq.client.sendOk('orders', { body: 'delayed', delay_seconds: 1 });
  await rq.client.sendOk('orders', { body: 'now' });
  await sleep(1300);
  await rq.client.sendOk('orders', { body: 'last' });
  const pulled = await rq.client.pullOk('orders');
  expect(pulled.messages.map((m) => m.body)).toEqual(['now', 'delayed', 'last']);
});

test('a re-queued message is ordered by the time its lease ended', async () => {
  await rq.client.sendOk('orders', { body: 'm1' });
  await rq.client.sendOk('orders', { body: 'm2' });
  const leased = await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 1000 });
  expect(leased.messages.map((m) => m.body)).toEqual(['m1']);
  await rq.client.sendOk('orders', { body: 'm3' }); // available before m1's lease ends
  await eventually(async () => (await rq.redis.keys('rq:{acme}:c:orders:f')).length === 0, 4000);
  await sleep(50);
  await rq.client.sendOk('orders', { body: 'm4' }); // available after m1's lease ended
  const pulled = await rq.client.pullOk('orders');
  expect(pulled.messages.map((m) => [m.body, m.attempts])).toEqual([
    ['m2', 1],
    ['m3', 1],
    ['m1', 2],
    ['m4', 1],
  ]);
});

test('a pulled message: body, UUID id, timestamp_ms, attempts, metadata, lease_id, content_type', async () => {
  const before = Date.now();
  const id = await rq.client.sendOk('orders', {
    body: { order: 42, items: ['a', 'b'], note: 'ünïcødé ✓' },
    metadata: { source: 'shop', retry: false },
    content_type: 'json',
  });
  const after = Date.now();
  const pulled = await rq.client.pullOk('orders');
  expect(pulled.messages).toHaveLength(1);
  const m = pulled.messages[0];
  expect(Object.keys(m).sort()).toEqual(
    ['attempts', 'body', 'content_type', 'id', 'lease_id', 'metadata', 'timestamp_ms'].sort(),
  );
  expect(m.id).toBe(id);
  expect(m.id).toMatch(UUID);
  expect(m.body).toEqual({ order: 42, items: ['a', 'b'], note: 'ünïcødé ✓' });
  expect(m.metadata).toEqual({ source: 'shop', retry: false });
  expect(m.content_type).toBe('json');
  expect(m.attempts).toBe(1);
  expect(typeof m.lease_id).toBe('string');
  expect(m.timestamp_ms).toBeGreaterThanOrEqual(before - 1000);
  expect(m.timestamp_ms).toBeLessThanOrEqual(after + 1000);
});

test('the success envelope of each endpoint', async () => {
  const sent = await rq.client.send('orders', { body: 1 });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { id: expect.stringMatching(UUID) },
  });
  const batch = await rq.client.batch('orders', { messages: [{ body: 2 }, { body: 3 }] });
  expect(batch.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { ids: [expect.stringMatching(UUID), expect.stringMatching(UUID)] },
  });
  const pulled = await rq.client.pull('orders', { batch_size: 1 });
  expect(pulled.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { message_backlog_count: 3, messages: [expect.objectContaining({ body: 1 })] },
  });
  for (const res of [sent, batch, pulled]) {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  }
});

test('ids are unique across sends', async () => {
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const res = await rq.client.batch('orders', {
      messages: Array.from({ length: 20 }, () => ({ body: i })),
    });
    for (const id of res.body.result.ids) ids.add(id);
  }
  expect(ids.size).toBe(100);
});
