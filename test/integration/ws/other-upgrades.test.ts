/**
 * A request that asks to upgrade to something other than WebSocket (h2c, as
 * `curl --http2` and Java's HttpClient send on http:// URLs) is served as the
 * plain HTTP request it also is, body and keep-alive included, not refused.
 */
import http from 'node:http';
import net from 'node:net';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ listen: true, account: 'acme' });

const H2C = {
  Connection: 'Upgrade, HTTP2-Settings',
  Upgrade: 'h2c',
  'HTTP2-Settings': 'AAMAAABkAARAAAAAAAIAAAAA',
};

function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: string[] = [],
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: rq.app.port, method, path, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.on('upgrade', () => reject(new Error('the server switched protocols')));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

test('send (Content-Length body), pull (chunked body) and health, each with Upgrade: h2c', async () => {
  const body = JSON.stringify({ body: { n: 1 } });
  const sent = await request(
    'POST',
    '/v1/relay/channels/orders/messages',
    { ...H2C, Authorization: rq.auth, 'Content-Length': String(Buffer.byteLength(body)) },
    [body],
  );
  expect(sent.status).toBe(200);
  const id = (sent.body as { result: { id: string } }).result.id;

  const pulled = await request(
    'POST',
    '/v1/relay/channels/orders/messages/pull',
    { ...H2C, Authorization: rq.auth, 'Transfer-Encoding': 'chunked' },
    ['{"batch_size"', ':10}'],
  );
  expect(pulled.status).toBe(200);
  expect(
    (pulled.body as { result: { messages: { id: string; body: unknown }[] } }).result.messages.map(
      (m) => [m.id, m.body],
    ),
  ).toEqual([[id, { n: 1 }]]);

  const health = await request('GET', '/healthz', H2C);
  expect(health.status).toBe(200);

  const unknown = await request('DELETE', '/v1/nope', { ...H2C, Authorization: rq.auth });
  expect(unknown).toEqual({
    status: 404,
    body: {
      success: false,
      errors: [{ code: 404, message: 'no such endpoint: DELETE /v1/nope' }],
      messages: [],
      result: null,
    },
  });
});

test('keep-alive: two requests with Upgrade: h2c on one connection', async () => {
  const socket = net.connect(rq.app.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (text += c));
  const ask = (path: string) =>
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${rq.auth}\r\n` +
        'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
    );
  const responses = () => text.match(/HTTP\/1\.1 \d+/g) ?? [];
  ask('/v1/relay/channels');
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`got: ${JSON.stringify(text)}`)), 5000);
    const check = () => {
      if (responses().length === 1 && text.includes('"success":true')) {
        clearTimeout(t);
        resolve();
      } else socket.once('data', check);
    };
    check();
  });
  ask('/healthz');
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`got: ${JSON.stringify(text)}`)), 5000);
    const check = () => {
      if (responses().length === 2 && text.endsWith('}')) {
        clearTimeout(t);
        resolve();
      } else socket.once('data', check);
    };
    check();
  });
  expect(responses()).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
  socket.destroy();
});
