/**
 * Reading plain request bodies (src/web/body.ts, src/web/readBody.ts): bodies that
 * arrive in many chunks, the 1 MiB limit whether announced by Content-Length or only
 * counted while reading, and a body cut short, each answered in the envelope and
 * storing nothing.
 */
import http from 'node:http';
import net from 'node:net';
import { accountWithToken, eventually } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ listen: true });
const base = '/v1/relay/channels/orders/messages';
let auth: string;

beforeEach(async () => {
  ({ auth } = await accountWithToken(rq.app, 'acme'));
});

/** A POST written chunk by chunk (Transfer-Encoding: chunked), and its answer. */
function chunkedPost(path: string, chunks: string[]): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, rq.app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

async function backlog(): Promise<number> {
  const res = await rq.app.http.get('/v1/relay/channels/orders').set('Authorization', auth);
  return res.status === 404 ? 0 : res.body.result.queued;
}

const overLimit = {
  success: false,
  errors: [{ code: 413, message: 'request body is over the 1048576-byte limit' }],
  messages: [],
  result: null,
};

test('a body in many chunks is read whole', async () => {
  const text = JSON.stringify({ body: { order: 42, note: 'é'.repeat(3000) } });
  const chunks = text.match(/[\s\S]{1,700}/g)!;
  const res = await chunkedPost(base, chunks);
  expect(res.status).toBe(200);
  const pulled = await rq.app.http.post(`${base}/pull`).set('Authorization', auth).send({});
  expect(pulled.body.result.messages[0].body).toEqual(JSON.parse(text).body);
});

test('a chunked body over 1 MiB is a 413 once counted, and stores nothing', async () => {
  const before = await backlog();
  const filler = 'x'.repeat(64 * 1024);
  const chunks = ['{"body":"', ...Array.from({ length: 17 }, () => filler), '"}'];
  const res = await chunkedPost(base, chunks);
  expect(res).toEqual({ status: 413, body: overLimit });
  expect(await backlog()).toBe(before);
});

test('a Content-Length over 1 MiB is a 413; the body is read off first, so the sender gets the answer', async () => {
  const before = await backlog();
  const socket = net.connect(Number(new URL(rq.app.baseUrl).port), '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (d) => (answer += d));
  const size = 1_048_577;
  socket.write(
    `POST ${base} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
  );
  socket.write(`{"body":"${'x'.repeat(size - 11)}"}`);
  await eventually(() => answer.includes('\r\n\r\n{'), 5000, 20);
  socket.destroy();
  expect(answer.startsWith('HTTP/1.1 413')).toBe(true);
  expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(overLimit);
  expect(await backlog()).toBe(before);
});

test('a body cut short stores nothing, and the pod goes on serving', async () => {
  const before = await backlog();
  const socket = net.connect(Number(new URL(rq.app.baseUrl).port), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    `POST ${base} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"body":',
  );
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  const res = await rq.app.http.post(base).set('Authorization', auth).send({ body: 'after' });
  expect(res.status).toBe(200);
  expect(await backlog()).toBe(before + 1);
});
