/** Node-level limits of the public server: timeouts (no slowloris), header size, envelope refusals. */
import net from 'node:net';
import type http from 'node:http';
import { createApiServer, SERVER_LIMITS } from '../../src/web/nodeServer';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function listen(overrides = {}): Promise<number> {
  const server = createApiServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{"ok":true}');
  }, overrides);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** Writes raw bytes; resolves with everything read until the server closes the socket. */
function raw(
  port: number,
  write: (socket: net.Socket) => void,
): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.on('connect', () => write(socket));
  });
}

function envelopeOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

test('the server sets header, request and keep-alive timeouts and a header size limit', () => {
  const server = createApiServer(() => undefined);
  expect(server.headersTimeout).toBe(20_000);
  expect(server.requestTimeout).toBe(60_000);
  expect(server.keepAliveTimeout).toBe(65_000);
  expect(server.headersTimeout).toBeLessThan(server.requestTimeout);
  expect(SERVER_LIMITS).toEqual({
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 60_000,
    bodyTimeoutMs: 30_000,
    checkIntervalMs: 5_000,
    maxHeaderBytes: 16_384,
    keepAliveTimeoutMs: 65_000,
  });
  server.close();
});

test('a client sending its headers too slowly (slowloris) is answered 408 and closed', async () => {
  const port = await listen({
    headersTimeoutMs: 500,
    requestTimeoutMs: 1000,
    checkIntervalMs: 100,
  });
  const timers: NodeJS.Timeout[] = [];
  const { text, ms } = await raw(port, (socket) => {
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    // one header byte every 100 ms, never finishing the headers
    const drip = setInterval(() => socket.writable && socket.write('X'), 100);
    timers.push(drip);
  });
  timers.forEach(clearInterval);
  expect(ms).toBeLessThan(5000);
  expect(text.startsWith('HTTP/1.1 408 Request Timeout\r\n')).toBe(true);
  expect(envelopeOf(text)).toEqual({
    success: false,
    errors: [{ code: 408, message: 'the request was not received in time' }],
    messages: [],
    result: null,
  });
});

test('a body that never finishes is answered 408 after the body timeout and closed', async () => {
  // a handler that waits for the body, as every route does
  const server = createApiServer(
    (req, res) => {
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    },
    { bodyTimeoutMs: 300 },
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const { text, ms } = await raw(port, (socket) => {
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"bo');
  });
  expect(ms).toBeLessThan(5000);
  expect(text.startsWith('HTTP/1.1 408 Request Timeout\r\n')).toBe(true);
  expect(text).toContain('Connection: close');
  expect(envelopeOf(text)).toEqual({
    success: false,
    errors: [{ code: 408, message: 'request body was not received within 300 ms' }],
    messages: [],
    result: null,
  });
});

test("Node's request timeout leaves room for the headers and the body deadline", () => {
  const server = createApiServer(() => undefined, { bodyTimeoutMs: 120_000 });
  expect(server.requestTimeout).toBe(140_000);
  server.close();
});

test('headers over 16 KB are answered 431 with the envelope', async () => {
  const port = await listen();
  const { text } = await raw(port, (socket) => {
    socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  });
  expect(text.startsWith('HTTP/1.1 431 Request Header Fields Too Large\r\n')).toBe(true);
  expect(text).toContain('Content-Type: application/json; charset=utf-8');
  expect(envelopeOf(text)).toEqual({
    success: false,
    errors: [{ code: 431, message: 'request headers are over the 16384-byte limit' }],
    messages: [],
    result: null,
  });
});

test('a malformed request line is answered 400 with the envelope', async () => {
  const port = await listen();
  const { text } = await raw(port, (socket) => socket.write('NOT HTTP AT ALL\r\n\r\n'));
  expect(text.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
  expect(envelopeOf(text)).toEqual({
    success: false,
    errors: [{ code: 400, message: 'malformed HTTP request' }],
    messages: [],
    result: null,
  });
});
