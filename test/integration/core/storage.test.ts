/**
 * The storage layout (docs/design.md, "Storage layout"; lua/lib/common.lua): compact
 * records at the edges of what they encode, retention through per-channel runs instead
 * of a per-message expiry index, and every key and field gone when messages go.
 */
import { ADMIN_TOKEN, eventually, sleep, storageBytes } from '../../helpers/app';
import { LIMITS } from '../../../src/schemas/requests';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import type { Client } from '../../helpers/relayClient';
import { createHook, deliver, listenOnPods } from '../webhooks/hooks';

const pods = useTwoPods();
listenOnPods(pods);
const setup = () => accountOnPods(pods, 'st');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The channel's keys that exist, by suffix (q, f, m, x, d, dx). */
async function channelKeys(account: string, channel: string): Promise<string[]> {
  const keys = await pods.redis.keys(`rq:{${account}}:c:${channel}:*`);
  return keys.map((k) => k.slice(k.lastIndexOf(':') + 1)).sort();
}

/** The members of the channel's runs-and-minutes zset, with their scores. */
async function runs(account: string, channel: string): Promise<string[]> {
  return pods.a.redis.zrange(`rq:{${account}}:c:${channel}:x`, 0, -1);
}

async function stats(c: Client, channel: string) {
  const res = await c.channel(channel);
  expect(res.status).toBe(200);
  return res.body.result;
}

async function drainAll(c: Client, channel: string) {
  const out = [];
  for (;;) {
    const { messages } = await c.pullOk(channel, { batch_size: 100, visibility_timeout_ms: 60000 });
    if (messages.length === 0) return out;
    out.push(...messages);
  }
}

describe('records at the edges of their encoding', () => {
  test('binary, v8, text and JSON bodies come back as sent, with their ids and content types', async () => {
    const { ca, cb } = await setup();
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');
    const sent = [
      { body: bytes, content_type: 'bytes' },
      { body: 'AQID', content_type: 'v8' },
      { body: 'a|b:c\n"d"', content_type: 'text' },
      { body: { nested: [1, 'two', null, { three: true }] } },
    ];
    const before = Date.now();
    const ids = await ca.batchOk('orders', { messages: sent });
    const pulled = (await cb.pullOk('orders', { batch_size: 10 })).messages;
    expect(pulled.map((m) => m.id)).toEqual(ids);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(pulled.map((m) => [m.body, m.content_type])).toEqual([
      [bytes, 'bytes'],
      ['AQID', 'v8'],
      ['a|b:c\n"d"', 'text'],
      [sent[3].body, 'json'],
    ]);
    for (const m of pulled) {
      expect(m.timestamp_ms).toBeGreaterThanOrEqual(before - 1000);
      expect(m.timestamp_ms).toBeLessThanOrEqual(Date.now() + 1000);
      expect(m.metadata).toEqual({});
      expect(m.attempts).toBe(1);
    }
  });

  test('unicode metadata (multi-byte and astral characters) splits from the body exactly', async () => {
    const { ca } = await setup();
    const metadata = { ключ: 'значение ✓', emoji: '😀🎉𝄞', mixed: `é${'😀'.repeat(50)}` };
    const body = { text: '日本語 😀', pipe: '|', colon: ':' };
    await ca.sendOk('orders', { body, metadata });
    const [m] = (await ca.pullOk('orders')).messages;
    expect(m.metadata).toEqual(metadata);
    expect(m.body).toEqual(body);
  });

  test('a body is stored as its compact serialization, whether or not it was sent compact', async () => {
    const { id, auth } = await setup();
    const path = '/v1/relay/channels/orders/messages';
    const post = (url: string, text: string) =>
      pods.a.http
        .post(url)
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .send(text);
    const spaced = '{ "total" : 1.50e2,\n "items": [ ], "note": "caf\\u00e9 \\/" }';
    const compact = JSON.stringify(JSON.parse(spaced));
    expect(compact).toBe('{"total":150,"items":[],"note":"café /"}');
    expect((await post(path, `{"body": ${spaced} , "metadata":{}}`)).status).toBe(200);
    expect(await storageBytes(pods.a, id)).toBe(Buffer.byteLength(compact) + 2);
    const batch = await post(`${path}/batch`, `{"messages":[{"body":${compact}},{"body":[1, 2]}]}`);
    expect(batch.status).toBe(200);
    expect(await storageBytes(pods.a, id)).toBe(2 * (Buffer.byteLength(compact) + 2) + 5 + 2);
    const pulled = await post(`${path}/pull`, '{"batch_size":10}');
    expect(pulled.status).toBe(200);
    expect(pulled.text.split(`"body":${compact},`)).toHaveLength(3);
    expect(pulled.text).toContain('"body":[1,2],');
  });

  test('the largest message (body + metadata exactly at the limit) is stored and read back', async () => {
    const { id, ca } = await setup();
    const metadata = { k: '😀' };
    const metaBytes = Buffer.byteLength(JSON.stringify(metadata));
    // a JSON string body: its bytes are its characters plus the two quotes
    const body = 'x'.repeat(LIMITS.maxMessageBytes - metaBytes - 2);
    await ca.sendOk('orders', { body, metadata });
    expect(await storageBytes(pods.a, id)).toBe(LIMITS.maxMessageBytes);
    const over = await ca.send('orders', { body: `${body}x`, metadata });
    expect(over.status).toBe(413);
    const [m] = (await ca.pullOk('orders')).messages;
    expect(m.body).toBe(body);
    expect(m.metadata).toEqual(metadata);
    await ca.ackOk('orders', { lease_ids: [m.lease_id] });
    expect(await storageBytes(pods.a, id)).toBe(0);
    expect(await channelKeys(id, 'orders')).toEqual([]);
  });
  test('a webhook message counts its body as stored (its JSON text) through dead-lettering and redrive', async () => {
    const { id, auth, ca } = await setup();
    await ca.sendOk('other', { body: 'x' });
    const base = await storageBytes(pods.a, id);
    await ca.configure('inbox', { max_attempts: 1, dead_letter_channel: 'dlq' });
    const hook = await createHook(pods.a, auth, 'inbox');
    expect((await deliver(pods.a, hook.path, 'a'.repeat(300))).status).toBe(200);
    const [first] = (await ca.pullOk('inbox')).messages;
    // charged what is stored: the body's JSON text (quotes included) and the metadata's
    const counted =
      Buffer.byteLength(JSON.stringify('a'.repeat(300))) +
      Buffer.byteLength(JSON.stringify(first.metadata));
    expect(await storageBytes(pods.a, id)).toBe(base + counted);
    await ca.retryOk('inbox', [{ lease_id: first.lease_id }]);
    const [dead] = (await ca.pullOk('dlq')).messages;
    expect([dead.body, dead.content_type, dead.metadata, dead.dead_letter]).toEqual([
      'a'.repeat(300),
      'text',
      first.metadata,
      { source_channel: 'inbox', attempts: 1 },
    ]);
    await ca.retryOk('dlq', [{ lease_id: dead.lease_id }]);
    expect(await ca.redriveOk('dlq')).toBe(1);
    const [back] = (await ca.pullOk('inbox')).messages;
    expect([back.id, back.body, back.dead_letter]).toEqual([first.id, 'a'.repeat(300), undefined]);
    expect(await storageBytes(pods.a, id)).toBe(base + counted);
    await ca.ackOk('inbox', { lease_ids: [back.lease_id] });
    expect(await storageBytes(pods.a, id)).toBe(base);
  });
});

describe('retention without a per-message index', () => {
  test('expired messages are never delivered and leave no key behind; the config and dedup history stay', async () => {
    const { id, ca } = await setup();
    await ca.configure('orders', { retention_seconds: 1 });
    await ca.sendOk('orders', { body: 'queued', dedup_id: 'once' });
    await ca.sendOk('orders', { body: 'delayed', delay_seconds: 30 });
    await ca.sendOk('orders', { body: 'leased' });
    const leased = (await ca.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 60000 }))
      .messages;
    expect(leased.map((m) => m.body)).toEqual(['queued']);
    expect(await channelKeys(id, 'orders')).toEqual(['d', 'dx', 'f', 'm', 'q', 'x']);
    await sleep(1100);
    // past retention: never delivered, even before the sweeper has run
    expect((await ca.pullOk('orders')).messages).toEqual([]);
    await eventually(async () => (await channelKeys(id, 'orders')).join() === 'd,dx', 5000, 50);
    expect(await storageBytes(pods.a, id)).toBe(0);
    const s = await stats(ca, 'orders');
    expect([s.queued, s.delayed, s.in_flight, s.expiring_within_1h]).toEqual([0, 0, 0, 0]);
    expect(s.oldest_message_ms).toBeNull();
    expect(s.config.retention_seconds).toBe(1);
  });

  test('a shortened retention starts a new run: each message expires on its own time', async () => {
    const { id, ca } = await setup();
    await ca.configure('orders', { retention_seconds: 4 });
    await ca.batchOk('orders', { messages: [{ body: 'long-1' }, { body: 'long-2' }] });
    await ca.configure('orders', { retention_seconds: 1 });
    await ca.sendOk('orders', { body: 'short' });
    await ca.configure('orders', { retention_seconds: 4 });
    await ca.sendOk('orders', { body: 'long-3' });
    // runs: [long-1, long-2], [short, long-3]
    expect((await runs(id, 'orders')).filter((m) => !m.startsWith('e'))).toHaveLength(2);
    await eventually(async () => (await stats(ca, 'orders')).queued === 3, 4000, 50);
    expect((await drainAll(ca, 'orders')).map((m) => m.body)).toEqual([
      'long-1',
      'long-2',
      'long-3',
    ]);
    await eventually(async () => (await channelKeys(id, 'orders')).length === 0, 8000, 100);
    expect(await storageBytes(pods.a, id)).toBe(0);
  });

  test('dead-lettered and redriven messages keep their expiry in their new channel', async () => {
    const { id, ca } = await setup();
    await ca.configure('orders', {
      retention_seconds: 2,
      max_attempts: 1,
      dead_letter_channel: 'dlq',
    });
    // the dead-letter channel holds a message that expires much later first
    await ca.sendOk('dlq', { body: 'stays' });
    const ids = await ca.batchOk('orders', {
      messages: [{ body: 'dead-1' }, { body: 'dead-2' }],
    });
    const pulled = (await ca.pullOk('orders', { batch_size: 10 })).messages;
    await ca.retryOk(
      'orders',
      pulled.map((m) => ({ lease_id: m.lease_id })),
    );
    expect((await stats(ca, 'dlq')).queued).toBe(3);
    expect(await channelKeys(id, 'orders')).toEqual([]);
    // in the dead-letter channel, the moved messages start a run (expiring before 'stays')
    expect((await runs(id, 'dlq')).filter((m) => !m.startsWith('e'))).toHaveLength(2);
    // all three back to orders: 'stays' keeps its 3 days, the others their 2 s
    expect(await ca.redriveOk('dlq', { to: 'orders' })).toBe(3);
    expect(await channelKeys(id, 'dlq')).toEqual([]);
    expect((await stats(ca, 'orders')).expiring_within_1h).toBe(2);
    await eventually(async () => (await stats(ca, 'orders')).queued === 1, 6000, 100);
    expect((await runs(id, 'orders')).filter((m) => !m.startsWith('e'))).toHaveLength(1);
    const left = (await ca.pullOk('orders', { batch_size: 10 })).messages;
    expect(left.map((m) => [m.body, m.attempts, m.dead_letter])).toEqual([['stays', 1, undefined]]);
    expect(ids).not.toContain(left[0].id);
    expect((await stats(ca, 'orders')).expiring_within_1h).toBe(0);
  });
});

describe('counts read from the layout', () => {
  test('expiring_within_1h counts the messages whose expiry falls within the hour', async () => {
    const { ca } = await setup();
    await ca.configure('orders', { retention_seconds: 1800 });
    await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    await ca.configure('orders', { retention_seconds: 7200 });
    await ca.batchOk('orders', { messages: [{ body: 3 }, { body: 4 }, { body: 5 }] });
    expect((await stats(ca, 'orders')).expiring_within_1h).toBe(2);
    const [first] = (await ca.pullOk('orders')).messages;
    await ca.ackOk('orders', { lease_ids: [first.lease_id] });
    expect((await stats(ca, 'orders')).expiring_within_1h).toBe(1);
  });

  test('the oldest message follows acknowledgements in any order, and nothing is left after the last', async () => {
    const { id, ca } = await setup();
    for (let i = 0; i < 5; i++) {
      await ca.sendOk('orders', { body: i });
      await sleep(5);
    }
    const pulled = (await ca.pullOk('orders', { batch_size: 5 })).messages;
    const oldest = async () => (await stats(ca, 'orders')).oldest_message_ms;
    expect(await oldest()).toBe(pulled[0].timestamp_ms);
    // out of order: 2, 4, then 0 (the oldest: the cursor walks past 1's gone neighbours)
    await ca.ackOk('orders', { lease_ids: [pulled[2].lease_id, pulled[4].lease_id] });
    expect(await oldest()).toBe(pulled[0].timestamp_ms);
    await ca.ackOk('orders', { lease_ids: [pulled[0].lease_id] });
    expect(await oldest()).toBe(pulled[1].timestamp_ms);
    await ca.ackOk('orders', { lease_ids: [pulled[1].lease_id] });
    expect(await oldest()).toBe(pulled[3].timestamp_ms);
    expect((await runs(id, 'orders')).filter((m) => !m.startsWith('e'))).toHaveLength(1);
    await ca.ackOk('orders', { lease_ids: [pulled[3].lease_id] });
    expect(await oldest()).toBeNull();
    expect(await channelKeys(id, 'orders')).toEqual([]);
  });

  test('a cursor held back by one message catches up over a long acknowledged stretch', async () => {
    const { id, ca } = await setup();
    for (let i = 0; i < 12; i++) {
      await ca.batchOk('orders', {
        messages: Array.from({ length: 100 }, (_, j) => ({ body: i * 100 + j })),
      });
    }
    const held = (await ca.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 60000 }))
      .messages[0];
    const rest = await drainAll(ca, 'orders');
    expect(rest).toHaveLength(1199);
    // everything after the held message is acknowledged but the last 50
    for (let i = 0; i < 1149; i += 100) {
      const leases = rest.slice(i, Math.min(i + 100, 1149)).map((m) => m.lease_id);
      expect((await ca.ackOk('orders', { lease_ids: leases })).acked_count).toBe(leases.length);
    }
    const oldest = async () => (await stats(ca, 'orders')).oldest_message_ms;
    expect(await oldest()).toBe(held.timestamp_ms);
    await ca.ackOk('orders', { lease_ids: [held.lease_id] });
    expect(await oldest()).toBe(rest[1149].timestamp_ms);
    expect((await runs(id, 'orders')).filter((m) => !m.startsWith('e'))).toEqual([
      (1151).toString(16).padStart(12, '0'),
    ]);
    expect((await stats(ca, 'orders')).in_flight).toBe(50);
  });
});

describe('purge and delete remove every key', () => {
  test('purge leaves the config and dedup history; sending again starts clean', async () => {
    const { id, ca } = await setup();
    await ca.batchOk('orders', {
      messages: [{ body: 1, dedup_id: 'a' }, { body: 2 }, { body: 3, delay_seconds: 60 }],
    });
    await ca.pullOk('orders', { batch_size: 1 });
    const purge = await ca.purge('orders');
    expect(purge.status).toBe(200);
    expect(await channelKeys(id, 'orders')).toEqual(['d', 'dx']);
    expect(await storageBytes(pods.a, id)).toBe(0);
    await ca.sendOk('orders', { body: 'after' });
    const [m] = (await ca.pullOk('orders')).messages;
    expect(m.body).toBe('after');
  });

  test('channel delete and account delete leave no key of the channel or account', async () => {
    const { id, auth, ca } = await setup();
    await ca.sendOk('orders', { body: 1, dedup_id: 'a' });
    await ca.sendOk('invoices', { body: 2 });
    const del = await pods.a.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
    expect(del.status).toBe(200);
    expect(await channelKeys(id, 'orders')).toEqual([]);
    const gone = await pods.a.http
      .delete(`/v1/admin/accounts/${id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(gone.status).toBe(200);
    await eventually(async () => (await pods.redis.keys(`rq:{${id}}*`)).length === 0, 5000, 50);
  });
});
