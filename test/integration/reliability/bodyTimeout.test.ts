/**
 * Bodies that never finish, on real sockets against the production server set-up
 * (createApiServer): on every entrance (the relay API, the account API, a webhook URL,
 * `/sqs` without a credential, an unknown route), a body held back or trickling is
 * answered 408 in the entrance's shape once RELAY_BODY_TIMEOUT_MS has passed since its
 * headers, and the connection closed; a body announced over the entrance's limit is a 413
 * at once, unread, before any credential is looked at, with `Connection: close`; a slow
 * body that completes in time is served, and its connection stays usable.
 */
import type http from 'node:http';
import net from 'node:net';
import { DEFAULT_PLANS } from '../../../src/config';
import { maxSqsRequestBytes } from '../../../src/sqs/router';
import { createApiServer } from '../../../src/web/nodeServer';
import { sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { createHook } from '../webhooks/hooks';

const TIMEOUT_MS = 500;

let server: http.Server;
let port: number;
// declared first, so that the server closes before useRelay() closes the pod
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const rq = useRelay({ account: 'acme' });
beforeAll(async () => {
  server = createApiServer(rq.app.relay.app, { bodyTimeoutMs: TIMEOUT_MS });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** from the end of the headers written to the connection's close */
  ms: number;
}

/**
 * Writes the request head, then calls more() with the socket (to trickle a body);
 * resolves with the one answer read once the server closes the connection.
 */
function exchange(head: string, more: (socket: net.Socket) => void = () => undefined) {
  return new Promise<Answer>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let started = 0;
    // a server that never closes fails the test rather than hanging it
    const giveUp = setTimeout(() => socket.destroy(new Error('the server did not close')), 10_000);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(giveUp);
      const ms = Date.now() - started;
      const at = text.indexOf('\r\n\r\n');
      if (!text.startsWith('HTTP/1.1 ') || at < 0) return reject(new Error(`no answer: ${text}`));
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, at).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(text.slice(9, 12)),
        headers,
        body: JSON.parse(text.slice(at + 4)),
        ms,
      });
    });
    socket.on('connect', () => {
      socket.write(head, () => {
        started = Date.now();
        more(socket);
      });
    });
  });
}

/** A request head announcing a body of length bytes. */
function head(method: string, path: string, length: number, headers: Record<string, string> = {}) {
  const lines = Object.entries({ Host: 'relay', ...headers, 'Content-Length': String(length) });
  return `${method} ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

/** One byte every 150 ms, until the connection closes. */
function trickle(socket: net.Socket): void {
  const drip = setInterval(() => (socket.writable ? socket.write('x') : undefined), 150);
  socket.on('close', () => clearInterval(drip));
}

const envelope = (code: number, message: string) => ({
  success: false,
  errors: [{ code, message }],
  messages: [],
  result: null,
});
const TIMED_OUT = `request body was not received within ${TIMEOUT_MS} ms`;
const json = { 'Content-Type': 'application/json' };
const sqs = {
  'Content-Type': 'application/x-amz-json-1.0',
  'X-Amz-Target': 'AmazonSQS.SendMessage',
};

interface Entrance {
  name: string;
  head: (length: number) => Promise<string>;
  /** the 408 and the 413 for an announced 2 GB body, as this entrance answers them */
  timedOut: { status: number; body: unknown; queryError?: string };
  tooLarge: { status: number; body: unknown; queryError?: string };
}

const entrances: Entrance[] = [
  {
    name: 'the relay API',
    head: async (n) => head('POST', '/v1/relay/channels/orders/messages', n, json),
    timedOut: { status: 408, body: envelope(408, TIMED_OUT) },
    tooLarge: { status: 413, body: envelope(413, 'request body is over the 1048576-byte limit') },
  },
  {
    name: 'the account API',
    head: async (n) => head('POST', '/v1/account/tokens', n, json),
    timedOut: { status: 408, body: envelope(408, TIMED_OUT) },
    tooLarge: { status: 413, body: envelope(413, 'request body is over the 1048576-byte limit') },
  },
  {
    name: 'a webhook URL',
    head: async (n) => {
      const hook = await createHook(rq.app, rq.auth, 'events');
      return head('POST', hook.path, n, json);
    },
    timedOut: { status: 408, body: envelope(408, TIMED_OUT) },
    tooLarge: {
      status: 413,
      body: envelope(
        413,
        "webhook request body is over the plan's 1048576-byte limit (max_webhook_bytes)",
      ),
    },
  },
  {
    name: '/sqs without a credential',
    head: async (n) => head('POST', '/sqs', n, sqs),
    timedOut: {
      status: 408,
      body: { __type: 'com.amazonaws.sqs#RequestTimeout', message: TIMED_OUT },
      queryError: 'RequestTimeout;Sender',
    },
    tooLarge: {
      status: 413,
      body: {
        __type: 'com.amazonaws.sqs#RequestEntityTooLarge',
        message: `The request body is over the ${maxSqsRequestBytes(DEFAULT_PLANS)}-byte limit.`,
      },
      queryError: 'RequestEntityTooLarge;Sender',
    },
  },
  {
    name: 'an unknown route',
    head: async (n) => head('POST', '/no/such/route', n, json),
    timedOut: { status: 408, body: envelope(408, TIMED_OUT) },
    tooLarge: { status: 413, body: envelope(413, 'request body is over the 1048576-byte limit') },
  },
];

describe.each(entrances)('$name', (entrance) => {
  const expectAnswer = (answer: Answer, expected: Entrance['timedOut']) => {
    expect(answer.status).toBe(expected.status);
    expect(answer.body).toEqual(expected.body);
    expect(answer.headers.connection).toBe('close');
    if (expected.queryError) expect(answer.headers['x-amzn-query-error']).toBe(expected.queryError);
  };

  test('a body never sent is answered 408 and closed once the body timeout has passed', async () => {
    const answer = await exchange(await entrance.head(100));
    expectAnswer(answer, entrance.timedOut);
    // never before the deadline; well within a loaded machine's slack after it
    expect(answer.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(answer.ms).toBeLessThan(5000);
  });

  test('a body trickling a byte at a time is answered 408 and closed all the same', async () => {
    const answer = await exchange(await entrance.head(100), trickle);
    expectAnswer(answer, entrance.timedOut);
    expect(answer.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(answer.ms).toBeLessThan(5000);
  });

  test('a body announced at 2 GB is a 413 at once, unread, and the connection closes', async () => {
    // not one byte of the body is sent: an answer that waited to read it would be the 408
    const answer = await exchange(await entrance.head(2_000_000_000));
    expectAnswer(answer, entrance.tooLarge);
    expect(answer.ms).toBeLessThan(TIMEOUT_MS);
  });
});

test('a slow body that completes within the timeout is served, and the connection stays open', async () => {
  const body = JSON.stringify({ body: { slow: true } });
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d) => (text += d.toString('latin1')));
  await new Promise((resolve) => socket.once('connect', resolve));
  const request = (b: string) =>
    head('POST', '/v1/relay/channels/orders/messages', Buffer.byteLength(b), {
      ...json,
      Authorization: rq.auth,
    });
  socket.write(request(body));
  // in three parts over about half the timeout
  for (const part of [body.slice(0, 5), body.slice(5, 12), body.slice(12)]) {
    socket.write(part);
    await sleep(TIMEOUT_MS / 6);
  }
  const answered = async (n: number) => {
    const deadline = Date.now() + 5000;
    while ((text.match(/HTTP\/1\.1 200 OK/g) ?? []).length < n && Date.now() < deadline)
      await sleep(20);
    return (text.match(/HTTP\/1\.1 200 OK/g) ?? []).length;
  };
  expect(await answered(1)).toBe(1);
  // past the deadline the connection is still there and serves the next request
  await sleep(TIMEOUT_MS * 2);
  expect(socket.destroyed).toBe(false);
  socket.write(request(body) + body);
  expect(await answered(2)).toBe(2);
  socket.destroy();
  const pulled = await rq.client.pullOk('orders', { batch_size: 10 });
  expect(pulled.messages.map((m) => m.body)).toEqual([{ slow: true }, { slow: true }]);
});
