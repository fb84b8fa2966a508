/**
 * A refused request changes nothing, on the raw socket: bytes that cannot be
 * parsed after a complete request (pipelined on one connection), and a client
 * that leaves before its pull is answered.
 */
import type http from 'node:http';
import net from 'node:net';
import { accountWithToken, sleep, type TestApp } from '../../helpers/app';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { createApiServer } from '../../../src/web/nodeServer';
import { accountKeys } from '../../../src/store/keys';

let server: http.Server;
let port: number;
// declared first, so that the server closes before useRelay() closes the pod
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
// No sweeps during a test: a delayed message becomes available without an event.
const rq = useRelay({ redis: startSingleRedis, env: { RELAY_SWEEP_INTERVAL_MS: '60000' } });
let redis: SingleTestRedis;
let app: TestApp;

beforeAll(async () => {
  ({ redis, app } = rq);
  server = createApiServer(app.relay.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

const path = (channel: string, suffix = '') => `/v1/relay/channels/${channel}/messages${suffix}`;

function requestText(method: string, url: string, auth: string, body: object): string {
  const json = JSON.stringify(body);
  return (
    `${method} ${url} HTTP/1.1\r\nHost: relay\r\nAuthorization: ${auth}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`
  );
}

/** Writes the bytes in one write; resolves with everything read until the server closes. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
    socket.on('connect', () => socket.write(bytes));
  });
}

/** The status lines and envelope bodies of the responses read, in order. */
function responses(text: string): { status: number; body: { result: unknown } }[] {
  const out: { status: number; body: { result: unknown } }[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const status = Number(rest.slice(9, 12));
    const headEnd = rest.indexOf('\r\n\r\n');
    const length = Number(/content-length: (\d+)/i.exec(rest.slice(0, headEnd))?.[1] ?? 0);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    out.push({ status, body: JSON.parse(body) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return out;
}

const GARBAGE = 'GARBAGE \u0001 not http\r\n\r\n';

test('a send followed by pipelined garbage is answered 200 first, then 400: stored only when answered 200', async () => {
  const t = await accountWithToken(app, 'acme');
  const text = await exchange(
    requestText('POST', path('orders'), t.auth, { body: 'kept' }) + GARBAGE,
  );
  const [sent, refused, ...none] = responses(text);
  expect(none).toEqual([]);
  expect(sent.status).toBe(200);
  expect(refused).toEqual({
    status: 400,
    body: {
      success: false,
      errors: [{ code: 400, message: 'malformed HTTP request' }],
      messages: [],
      result: null,
    },
  });
  const { id } = sent.body.result as { id: string };
  const pulled = await app.http.post(path('orders', '/pull')).set('Authorization', t.auth).send({});
  expect(pulled.body.result.messages.map((m: { id: string }) => m.id)).toEqual([id]);
});

test('a pull followed by pipelined garbage returns the lease ids it took', async () => {
  const t = await accountWithToken(app, 'acme');
  await app.http.post(path('orders')).set('Authorization', t.auth).send({ body: 1 });
  const text = await exchange(
    requestText('POST', path('orders', '/pull'), t.auth, { batch_size: 10 }) + GARBAGE,
  );
  const [pulled, refused] = responses(text);
  expect([pulled.status, refused.status]).toEqual([200, 400]);
  const leases = (pulled.body.result as { messages: { lease_id: string }[] }).messages.map(
    (m) => m.lease_id,
  );
  expect(leases).toHaveLength(1);
  const acked = await app.http
    .post(path('orders', '/ack'))
    .set('Authorization', t.auth)
    .send({ lease_ids: leases });
  expect(acked.body.result).toEqual({ acked_count: 1 });
});

test('a client that leaves while its pull runs: the lease is released at once, the attempt not counted', async () => {
  const t = await accountWithToken(app, 'acme');
  const released = () =>
    app.relay.metrics.messages.get().then((m) => {
      const v = m.values.find((x) => x.labels.event === 'released');
      return v ? v.value : 0;
    });
  const before = await released();
  // Available in 1 s, and no sweep to announce it: the waiting pull sleeps past that.
  const sent = await app.http
    .post(path('orders'))
    .set('Authorization', t.auth)
    .send({ body: 'once', delay_seconds: 1 });
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write(
    requestText('POST', path('orders', '/pull'), t.auth, {
      wait_ms: 10_000,
      visibility_timeout_ms: 60_000,
    }),
  );
  await sleep(1300);
  // Wake the waiter, and hold every write (the pull script too) while its client leaves.
  await redis.client
    .pipeline()
    .call('SPUBLISH', accountKeys('acme').events, 'n orders')
    .call('CLIENT', 'PAUSE', '800', 'WRITE')
    .exec();
  await sleep(300);
  socket.destroy();
  await sleep(1000);
  expect((await released()) - before).toBe(1);
  const again = await app.http.post(path('orders', '/pull')).set('Authorization', t.auth).send({});
  expect(again.body.result.messages).toHaveLength(1);
  expect(again.body.result.messages[0]).toMatchObject({ id: sent.body.result.id, attempts: 1 });
});
