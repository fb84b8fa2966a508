import { RelayClient, RelayError } from '@relayq/client';
import { accountWithToken, eventually } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { closedPort } from './support';

const rq = useRelay({ listen: true, account: 'acme' });
let client: RelayClient;
beforeEach(() => {
  client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
});

/** The RelayError a call throws. */
async function failure(promise: Promise<unknown>): Promise<RelayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RelayError);
    return err as RelayError;
  }
  throw new Error('the call did not fail');
}

test('send, sendBatch, pull, extend, ack and channels', async () => {
  const sent = await client.send('orders', { body: { n: 1 }, metadata: { k: 'v' } });
  expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);
  const batch = await client.sendBatch('orders', [
    { body: 'two', contentType: 'text' },
    { body: 3 },
  ]);
  expect(batch.ids).toHaveLength(2);

  const pulled = await client.pull('orders', { batchSize: 2, visibilityTimeoutMs: 5000 });
  expect(pulled.messageBacklogCount).toBe(3);
  expect(pulled.messages.map((m) => m.id)).toEqual([sent.id, batch.ids[0]]);
  expect(pulled.messages[0]).toMatchObject({
    body: { n: 1 },
    contentType: 'json',
    attempts: 1,
    metadata: { k: 'v' },
  });
  expect(pulled.messages[1]).toMatchObject({ body: 'two', contentType: 'text', metadata: {} });

  const leases = pulled.messages.map((m) => m.leaseId);
  expect(await client.extend('orders', leases, 10_000)).toEqual({ extendedCount: 2 });
  expect(await client.ack('orders', [leases[0], 'no-such-lease'])).toEqual({ ackedCount: 1 });
  expect(
    await client.ack('orders', [], { retries: [{ leaseId: leases[1], delaySeconds: 0 }] }),
  ).toEqual({ ackedCount: 0, retriedCount: 1 });

  const list = await client.channels();
  expect(list.channels).toEqual([
    expect.objectContaining({ id: 'orders', queued: 2, delayed: 0, inFlight: 0 }),
  ]);
});

test('sendBatch applies its delay_seconds to messages without their own', async () => {
  await client.sendBatch('later', [{ body: 1 }, { body: 2, delaySeconds: 0 }], {
    delaySeconds: 60,
  });
  const pulled = await client.pull('later', { batchSize: 10 });
  expect(pulled.messages.map((m) => m.body)).toEqual([2]);
  expect(pulled.messageBacklogCount).toBe(2);
});

test('pull with wait_ms returns as soon as a message is sent', async () => {
  const waiting = client.pull('slow', { waitMs: 10_000 });
  await new Promise((r) => setTimeout(r, 200));
  const { id } = await client.send('slow', { body: 'hi' });
  const pulled = await waiting;
  expect(pulled.messages.map((m) => m.id)).toEqual([id]);
});

test('a send with a dedup_id already seen stores nothing new', async () => {
  const first = await client.send('orders', { body: 1, dedupId: 'order-7' });
  const second = await client.send('orders', { body: 1, dedupId: 'order-7' });
  expect(second.id).toBe(first.id);
  expect((await client.pull('orders')).messages).toHaveLength(1);
});

test('400: a message without body', async () => {
  const err = await failure(client.send('orders', {} as never));
  expect([err.status, err.code, err.message]).toEqual([400, 400, 'required field body is missing']);
  expect(err.errors).toEqual([{ code: 400, message: 'required field body is missing' }]);
});

test('400: an out-of-range pull option and a bad channel id', async () => {
  const err = await failure(client.pull('orders', { batchSize: 101 }));
  expect([err.status, err.code, err.message]).toEqual([400, 400, 'batch_size must be at most 100']);
  const bad = await failure(client.send('.hidden', { body: 1 }));
  expect([bad.status, bad.code]).toEqual([400, 400]);
  expect(bad.message).toMatch(/^channelId /);
});

test('401: an unknown token', async () => {
  const stranger = new RelayClient({ url: rq.app.baseUrl, token: 'rq_nope' });
  const err = await failure(stranger.send('orders', { body: 1 }));
  expect([err.status, err.code, err.message]).toEqual([401, 401, 'invalid token']);
});

test('403: a token scoped to other channels', async () => {
  const { token } = await accountWithToken(rq.app, 'acme', { channels: ['alerts'] });
  const scoped = new RelayClient({ url: rq.app.baseUrl, token });
  const err = await failure(scoped.pull('orders'));
  expect([err.status, err.code, err.message]).toEqual([
    403,
    403,
    'this token may not use channel orders',
  ]);
});

test('404: a relay address with a wrong path', async () => {
  const { token } = await accountWithToken(rq.app, 'acme');
  const lost = new RelayClient({ url: `${rq.app.baseUrl}/wrong`, token });
  const err = await failure(lost.channels());
  expect([err.status, err.code]).toEqual([404, 404]);
  expect(err.message).toBe('no such endpoint: GET /wrong/v1/relay/channels');
});

test('413: a message over 128 KB', async () => {
  const err = await failure(client.send('orders', { body: 'x'.repeat(131_072) }));
  expect([err.status, err.code]).toEqual([413, 413]);
  expect(err.message).toBe('message is 131076 bytes; the limit is 131072 bytes (body + metadata)');
});

test('status 0 when nothing answers, and no retry of a plain send', async () => {
  let calls = 0;
  const counting: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const port = await closedPort();
  const dead = new RelayClient({
    url: `http://127.0.0.1:${port}`,
    token: 't',
    fetch: counting,
    retry: { attempts: 3, baseMs: 10, maxMs: 20 },
  });
  const err = await failure(dead.send('orders', { body: 1 }));
  expect([err.status, err.code]).toEqual([0, 0]);
  expect(err.message).toBe(
    `cannot reach the relay at http://127.0.0.1:${port}: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${port})`,
  );
  expect(calls).toBe(1);
  await failure(dead.pull('orders'));
  expect(calls).toBe(4);
});

test('the constructor refuses a missing token or an address that is not http(s)', () => {
  expect(() => new RelayClient({ url: 'localhost:8080', token: 't' })).toThrow(
    'url must be an http:// or https:// address, not "localhost:8080"',
  );
  expect(() => new RelayClient({ url: rq.app.baseUrl, token: '' })).toThrow(
    'RelayClient needs a token',
  );
});

test('subscribe: connected, then new_message for a send on any of its channels', async () => {
  const sub = client.subscribe(['orders', 'alerts']);
  const seen: string[] = [];
  sub.on('connected', (channels: string[]) => seen.push(`connected ${channels.join(',')}`));
  sub.on('new_message', (channel: string) => seen.push(`new_message ${channel}`));
  sub.open();
  try {
    await eventually(() => seen.length === 1);
    await client.send('alerts', { body: 1 });
    await client.send('elsewhere', { body: 2 });
    await client.send('orders', { body: 3 });
    await eventually(() => seen.length === 3);
    expect(seen).toEqual(['connected orders,alerts', 'new_message alerts', 'new_message orders']);
    expect(sub.connected).toBe(true);
  } finally {
    await sub.close();
  }
  expect(sub.connected).toBe(false);
});

test('subscribe: a refused upgrade is a RelayError, and it keeps retrying', async () => {
  const stranger = new RelayClient({ url: rq.app.baseUrl, token: 'rq_nope' });
  const sub = stranger.subscribe('orders', { reconnect: { baseMs: 50, maxMs: 100 } });
  const errors: RelayError[] = [];
  sub.on('error', (err: RelayError) => errors.push(err));
  sub.open();
  try {
    await eventually(() => errors.length >= 2);
  } finally {
    await sub.close();
  }
  expect(errors[0]).toBeInstanceOf(RelayError);
  expect([errors[0].status, errors[0].code, errors[0].message]).toEqual([
    401,
    401,
    'invalid token',
  ]);
});

test('in a page (global WebSocket, no headers) the token travels as a subprotocol the relay accepts', async () => {
  const page = globalThis as { window?: unknown; WebSocket?: unknown };
  const saved = { window: page.window, WebSocket: page.WebSocket };
  // the ws package stands in for a browser's WebSocket: same constructor and events
  page.window = {};
  page.WebSocket = (await import('ws')).default;
  const seen: string[] = [];
  const sub = client.subscribe('orders');
  sub.on('connected', () => seen.push('connected'));
  sub.on('new_message', (channel: string) => seen.push(`new_message ${channel}`));
  try {
    sub.open();
    await eventually(() => seen.length === 1);
    await client.send('orders', { body: 1 });
    await eventually(() => seen.length === 2);
    expect(seen).toEqual(['connected', 'new_message orders']);
  } finally {
    await sub.close();
    page.window = saved.window;
    page.WebSocket = saved.WebSocket;
  }
});
