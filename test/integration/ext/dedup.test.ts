/** Extension: deduplication for producers (`dedup_id`), within a window per channel. */
import { DEFAULT_CHANNEL_CONFIG, sleep, storageBytes } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { errorEnvelope } from '../../helpers/relayClient';

const pods = useTwoPods();

const setup = () => accountOnPods(pods, 'dd');

test('within the window, the same dedup_id returns the first id and stores nothing', async () => {
  const { ca, id: account } = await setup();
  const first = await ca.sendOk('orders', { body: { order: 1 }, dedup_id: 'order-1' });
  const stored = await storageBytes(pods.a, account);
  expect(stored).toBe(13); // {"order":1} + {}
  const again = await ca.sendOk('orders', { body: { order: 'changed' }, dedup_id: 'order-1' });
  expect(again).toBe(first);
  expect(await storageBytes(pods.a, account)).toBe(stored);
  const pulled = await ca.pullOk('orders');
  expect(pulled.message_backlog_count).toBe(1);
  expect(pulled.messages.map((m) => [m.id, m.body])).toEqual([[first, { order: 1 }]]);
});

test('the first id is returned even after that message was acknowledged', async () => {
  const { ca, id: account } = await setup();
  const first = await ca.sendOk('orders', { body: 1, dedup_id: 'x' });
  const [m] = (await ca.pullOk('orders')).messages;
  expect(await ca.ackOk('orders', { lease_ids: [m.lease_id] })).toEqual({ acked_count: 1 });
  expect(await ca.sendOk('orders', { body: 1, dedup_id: 'x' })).toBe(first);
  expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  expect(await storageBytes(pods.a, account)).toBe(0);
});

test('dedup ids are per channel, and messages without one are never deduplicated', async () => {
  const { ca } = await setup();
  const one = await ca.sendOk('orders', { body: 1, dedup_id: 'same' });
  const other = await ca.sendOk('invoices', { body: 1, dedup_id: 'same' });
  expect(other).not.toBe(one);
  const plain1 = await ca.sendOk('orders', { body: 1 });
  const plain2 = await ca.sendOk('orders', { body: 1 });
  expect(new Set([one, plain1, plain2]).size).toBe(3);
  expect((await ca.pullOk('orders')).message_backlog_count).toBe(3);
});

test('after the window (dedup_window_seconds 1), the same dedup_id stores a new message', async () => {
  const { ca } = await setup();
  const res = await ca.configure('orders', { dedup_window_seconds: 1 });
  expect(res.status).toBe(200);
  expect(res.body.result.config).toEqual({ ...DEFAULT_CHANNEL_CONFIG, dedup_window_seconds: 1 });
  const first = await ca.sendOk('orders', { body: 1, dedup_id: 'tick' });
  expect(await ca.sendOk('orders', { body: 1, dedup_id: 'tick' })).toBe(first);
  await sleep(1300);
  const second = await ca.sendOk('orders', { body: 2, dedup_id: 'tick' });
  expect(second).not.toBe(first);
  // The second one opened a new window.
  expect(await ca.sendOk('orders', { body: 3, dedup_id: 'tick' })).toBe(second);
  const pulled = await ca.pullOk('orders');
  expect(pulled.messages.map((m) => m.id)).toEqual([first, second]);
});

test('within one batch, repeated dedup_ids share the first id and are stored once', async () => {
  const { ca, id: account } = await setup();
  const ids = await ca.batchOk('orders', {
    messages: [
      { body: 'a', dedup_id: 'k1' },
      { body: 'b', dedup_id: 'k2' },
      { body: 'c', dedup_id: 'k1' },
      { body: 'd' },
      { body: 'e', dedup_id: 'k2' },
    ],
  });
  expect(ids).toHaveLength(5);
  expect(ids[2]).toBe(ids[0]);
  expect(ids[4]).toBe(ids[1]);
  expect(new Set(ids).size).toBe(3);
  expect(await storageBytes(pods.a, account)).toBe(3 * 5); // "a" + {} each
  const pulled = await ca.pullOk('orders');
  expect(pulled.messages.map((m) => m.body)).toEqual(['a', 'b', 'd']);
  // A later batch sees the earlier ids.
  const later = await ca.batchOk('orders', {
    messages: [
      { body: 'z', dedup_id: 'k2' },
      { body: 'y', dedup_id: 'k3' },
    ],
  });
  expect(later[0]).toBe(ids[1]);
  expect(later[1]).not.toBe(ids[1]);
});

test('concurrent sends of one dedup_id on two instances store exactly one message', async () => {
  const { ca, cb, id: account } = await setup();
  const sends = Array.from({ length: 10 }, (_, i) =>
    (i % 2 === 0 ? ca : cb).sendOk('orders', { body: { i }, dedup_id: 'race' }),
  );
  const ids = await Promise.all(sends);
  expect(new Set(ids).size).toBe(1);
  const pulled = await ca.pullOk('orders', { batch_size: 100 });
  expect(pulled.message_backlog_count).toBe(1);
  expect(pulled.messages.map((m) => m.id)).toEqual([ids[0]]);
  const size = JSON.stringify(pulled.messages[0].body).length + 2;
  expect(await storageBytes(pods.a, account)).toBe(size);
});

test('dedup_id is 1 to 128 characters', async () => {
  const { ca } = await setup();
  const longest = 'd'.repeat(128);
  const id = await ca.sendOk('orders', { body: 1, dedup_id: longest });
  expect(await ca.sendOk('orders', { body: 2, dedup_id: longest })).toBe(id);
  const bad: [string, object, string][] = [
    ['', { body: 1, dedup_id: 'd'.repeat(129) }, 'dedup_id must be at most 128 characters'],
    ['', { body: 1, dedup_id: '' }, 'dedup_id must be at least 1 characters'],
    ['', { body: 1, dedup_id: 7 }, 'dedup_id must be a string'],
    ['', { body: 1, dedup_id: null }, 'dedup_id must be a string'],
    [
      '/batch',
      { messages: [{ body: 1 }, { body: 2, dedup_id: 'd'.repeat(129) }] },
      'messages[1].dedup_id must be at most 128 characters',
    ],
  ];
  for (const [suffix, body, message] of bad) {
    const res = await ca.post(ca.path('orders', suffix), body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorEnvelope(400, message));
  }
  expect((await ca.pullOk('orders')).message_backlog_count).toBe(1);
});

test('dedup_window_seconds is 1 to 86400', async () => {
  const { ca } = await setup();
  const ok = await ca.configure('orders', { dedup_window_seconds: 86400 });
  expect(ok.status).toBe(200);
  expect(ok.body.result.config.dedup_window_seconds).toBe(86400);
  const bad: [unknown, string][] = [
    [0, 'dedup_window_seconds must be at least 1'],
    [86401, 'dedup_window_seconds must be at most 86400'],
    [1.5, 'dedup_window_seconds must be an integer'],
    [null, 'dedup_window_seconds must be an integer'],
  ];
  for (const [value, message] of bad) {
    const res = await ca.configure('orders', { dedup_window_seconds: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorEnvelope(400, message));
  }
});
