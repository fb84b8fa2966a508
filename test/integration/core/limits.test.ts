/** Every limit of docs/api/errors.md ("Sizes and plan limits") at its edge and one past it, with exact messages. */
import { accountWithToken } from '../../helpers/app';
import { expectError, relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({
  env: { RELAY_PLANS: '{"free":{"max_storage_bytes":100000000}}' },
  account: 'acme',
});

const backlog = async (channel = 'orders') =>
  (await rq.client.pullOk(channel, { batch_size: 1, visibility_timeout_ms: 1000 }))
    .message_backlog_count;

describe('delay_seconds', () => {
  test('86400 is accepted (the message is delayed)', async () => {
    expect((await rq.client.send('orders', { body: 1, delay_seconds: 86400 })).status).toBe(200);
    expect(await rq.client.pullOk('orders')).toEqual({ message_backlog_count: 1, messages: [] });
  });
  test('86401 is a 400 and nothing is stored', async () => {
    const res = await rq.client.send('orders', { body: 1, delay_seconds: 86401 });
    expectError(res, 400, 'delay_seconds must be at most 86400');
    expect(await backlog()).toBe(0);
  });
  test('negative is a 400, never clamped', async () => {
    expectError(
      await rq.client.send('orders', { body: 1, delay_seconds: -1 }),
      400,
      'delay_seconds must be at least 0',
    );
  });
  test('a string is a 400', async () => {
    expectError(
      await rq.client.send('orders', { body: 1, delay_seconds: '5' }),
      400,
      'delay_seconds must be a number',
    );
  });
  test('in a batch entry the message names the index', async () => {
    const messages = [{ body: 0 }, { body: 1 }, { body: 2 }, { body: 3, delay_seconds: 86401 }];
    expectError(
      await rq.client.batch('orders', { messages }),
      400,
      'messages[3].delay_seconds must be at most 86400',
    );
    expect(await backlog()).toBe(0);
  });
  test('the batch-level delay_seconds has the same limits', async () => {
    expectError(
      await rq.client.batch('orders', { messages: [{ body: 1 }], delay_seconds: 86401 }),
      400,
      'delay_seconds must be at most 86400',
    );
    const ok = await rq.client.batch('orders', { messages: [{ body: 1 }], delay_seconds: 86400 });
    expect(ok.status).toBe(200);
  });
});

describe('messages per batch', () => {
  const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ body: i }));
  test('100 are accepted, in order', async () => {
    const res = await rq.client.batch('orders', { messages: entries(100) });
    expect(res.status).toBe(200);
    expect(res.body.result.ids).toHaveLength(100);
    expect(new Set(res.body.result.ids).size).toBe(100);
    const pulled = await rq.client.pullOk('orders', { batch_size: 100 });
    expect(pulled.messages.map((m) => m.body)).toEqual(entries(100).map((e) => e.body));
    expect(pulled.messages.map((m) => m.id)).toEqual(res.body.result.ids);
  });
  test('101 is a 400 and nothing is stored', async () => {
    expectError(
      await rq.client.batch('orders', { messages: entries(101) }),
      400,
      'messages must have at most 100 entries',
    );
    expect(await backlog()).toBe(0);
  });
  test('0 is a 400', async () => {
    expectError(
      await rq.client.batch('orders', { messages: [] }),
      400,
      'messages must have at least 1 entry',
    );
  });
  test('messages missing is a 400', async () => {
    expectError(await rq.client.batch('orders', {}), 400, 'required field messages is missing');
  });
});

describe('message size (body JSON + metadata JSON, UTF-8 bytes)', () => {
  const LIMIT = 131072;
  /** A string body whose JSON (with its quotes) is `bytes` long. */
  const bodyOf = (bytes: number) => 'a'.repeat(bytes - 2);

  test('exactly 131072 bytes with no metadata ({} counts 2 bytes) is accepted and pulled whole', async () => {
    const body = bodyOf(LIMIT - 2);
    expect((await rq.client.send('orders', { body })).status).toBe(200);
    const pulled = await rq.client.pullOk('orders');
    expect(pulled.messages[0].body).toBe(body);
    expect(pulled.messages[0].metadata).toEqual({});
  });
  test('one byte more is a 413 naming the size and the limit', async () => {
    expectError(
      await rq.client.send('orders', { body: bodyOf(LIMIT - 1) }),
      413,
      'message is 131073 bytes; the limit is 131072 bytes (body + metadata)',
    );
    expect(await backlog()).toBe(0);
  });
  test('metadata counts: body + metadata at exactly the limit, then one more', async () => {
    const metadata = { k: 'v'.repeat(1000) }; // {"k":"vvv..."} = 1008 bytes
    const metaBytes = JSON.stringify(metadata).length;
    expect(metaBytes).toBe(1008);
    const ok = await rq.client.send('orders', { body: bodyOf(LIMIT - metaBytes), metadata });
    expect(ok.status).toBe(200);
    expectError(
      await rq.client.send('orders', { body: bodyOf(LIMIT - metaBytes + 1), metadata }),
      413,
      'message is 131073 bytes; the limit is 131072 bytes (body + metadata)',
    );
  });
  test('bytes are UTF-8 bytes, not characters', async () => {
    // 'é' is 2 bytes in UTF-8: 65534 of them + quotes = 131070, + {} = 131072
    expect((await rq.client.send('orders', { body: 'é'.repeat(65534) })).status).toBe(200);
    expectError(
      await rq.client.send('orders', { body: 'é'.repeat(65534) + 'a' }),
      413,
      'message is 131073 bytes; the limit is 131072 bytes (body + metadata)',
    );
  });
  test('in a batch the 413 names the index and nothing is stored', async () => {
    const res = await rq.client.batch('orders', {
      messages: [{ body: 1 }, { body: bodyOf(LIMIT - 1) }],
    });
    expectError(
      res,
      413,
      'messages[1] is 131073 bytes; the limit is 131072 bytes (body + metadata)',
    );
    expect(await backlog()).toBe(0);
  });
});

describe('request body size (1 MiB)', () => {
  /** A batch request whose raw JSON is exactly `bytes` long. */
  function batchOf(bytes: number): string {
    const shell = (fill: string[]) => JSON.stringify({ messages: fill.map((body) => ({ body })) });
    const bodies = Array.from({ length: 9 }, () => 'a'.repeat(116_000));
    const missing = bytes - Buffer.byteLength(shell(bodies));
    bodies[8] = 'a'.repeat(116_000 + missing);
    const text = shell(bodies);
    // every message stays under the 128 KB message limit: only the request size is tested
    expect(116_000 + missing).toBeLessThan(131_000);
    expect(Buffer.byteLength(text)).toBe(bytes);
    return text;
  }
  const post = (text: string) =>
    rq.app.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', rq.auth)
      .set('Content-Type', 'application/json')
      .send(text);

  test('exactly 1048576 bytes is accepted', async () => {
    const res = await post(batchOf(1_048_576));
    expect(res.status).toBe(200);
    expect(res.body.result.ids).toHaveLength(9);
  });
  test('1048577 bytes is a 413', async () => {
    expectError(await post(batchOf(1_048_577)), 413, 'request body is over the 1048576-byte limit');
  });
});

describe('pull: visibility_timeout_ms and batch_size', () => {
  test('visibility_timeout_ms 1000 and 43200000 are accepted', async () => {
    await rq.client.sendOk('orders', { body: 1 });
    await rq.client.sendOk('orders', { body: 2 });
    const a = await rq.client.pull('orders', { visibility_timeout_ms: 1000, batch_size: 1 });
    expect(a.status).toBe(200);
    const b = await rq.client.pull('orders', { visibility_timeout_ms: 43_200_000, batch_size: 1 });
    expect(b.status).toBe(200);
    expect(b.body.result.messages).toHaveLength(1);
  });
  test.each([
    [{ visibility_timeout_ms: 999 }, 'visibility_timeout_ms must be at least 1000'],
    [{ visibility_timeout_ms: 43_200_001 }, 'visibility_timeout_ms must be at most 43200000'],
    [{ visibility_timeout_ms: 1500.5 }, 'visibility_timeout_ms must be an integer'],
    [{ visibility_timeout_ms: '1000' }, 'visibility_timeout_ms must be an integer'],
    [{ batch_size: 0 }, 'batch_size must be at least 1'],
    [{ batch_size: 101 }, 'batch_size must be at most 100'],
    [{ batch_size: 2.5 }, 'batch_size must be an integer'],
    [{ batch_size: null }, 'batch_size must be an integer'],
    [{ batch_sizes: 10 }, 'unknown field batch_sizes'],
  ])('%j is a 400', async (body, message) => {
    await rq.client.sendOk('orders', { body: 1 });
    expectError(await rq.client.pull('orders', body), 400, message);
    // the refused pull leased nothing
    expect((await rq.client.pullOk('orders')).messages).toHaveLength(1);
  });
  test('batch_size 100 returns 100 of 101 messages; default is 10', async () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ body: i }));
    await rq.client.batch('orders', { messages: entries });
    await rq.client.sendOk('orders', { body: 100 });
    const pulled = await rq.client.pullOk('orders', { batch_size: 100 });
    expect(pulled.messages).toHaveLength(100);
    expect(pulled.message_backlog_count).toBe(101);
    await rq.redis.flush();
    const fresh = relay(rq.app, (await accountWithToken(rq.app, 'acme')).auth);
    await fresh.batch('orders', { messages: entries.slice(0, 11) });
    expect((await fresh.pullOk('orders')).messages).toHaveLength(10);
  });
  test('the default visibility timeout is 30 s', async () => {
    await rq.client.sendOk('orders', { body: 1 });
    const before = Date.now();
    await rq.client.pullOk('orders');
    const [deadline] = await rq.app.redis
      .zrange('rq:{acme}:c:orders:f', 0, 0, 'WITHSCORES')
      .then((r) => [Number(r[1])]);
    expect(deadline - before).toBeGreaterThanOrEqual(29_000);
    expect(deadline - before).toBeLessThanOrEqual(31_000);
  });
});

describe('ack: lease_ids', () => {
  const fake = (i: number) => i.toString(16).padStart(34, '0');
  test('100 lease ids are accepted', async () => {
    const res = await rq.client.ack(
      'orders',
      Array.from({ length: 100 }, (_, i) => fake(i)),
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ acked_count: 0 });
  });
  test('101 is a 400', async () => {
    expectError(
      await rq.client.ack(
        'orders',
        Array.from({ length: 101 }, (_, i) => fake(i)),
      ),
      400,
      'lease_ids must have at most 100 entries',
    );
  });
  test('0 is accepted and acks nothing', async () => {
    const res = await rq.client.ack('orders', []);
    expect(res.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { acked_count: 0 },
    });
  });
  test('an entry over 256 characters is a 400; 256 is ignored like any unknown id', async () => {
    expectError(
      await rq.client.ack('orders', ['x', 'y'.repeat(257)]),
      400,
      'lease_ids[1] must be at most 256 characters',
    );
    expect((await rq.client.ack('orders', ['y'.repeat(256)])).body.result).toEqual({
      acked_count: 0,
    });
  });
  test('a non-string entry, a non-array and a missing field are 400s', async () => {
    const post = (body: unknown) =>
      rq.app.http
        .post('/v1/relay/channels/orders/messages/ack')
        .set('Authorization', rq.auth)
        .send(body as object);
    expectError(await post({ lease_ids: [1] }), 400, 'lease_ids[0] must be a string');
    expectError(await post({ lease_ids: 'abc' }), 400, 'lease_ids must be an array');
    expectError(await post({}), 400, 'required field lease_ids is missing');
    expectError(await post({ lease_ids: null }), 400, 'lease_ids must be an array');
  });
});
