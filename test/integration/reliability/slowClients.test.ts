/**
 * Slow and greedy clients: the real server's timeouts and header limit
 * (runServer), WebSocket connections per token (429 before the upgrade), and
 * the maximum number of channels in one multi-channel subscription (400).
 */
import net from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { MAX_CHANNELS_PER_SUBSCRIPTION } from '../../../src/ws/upgrade';
import { runServer, type RunningServer } from '../../../src/server';
import { ADMIN_TOKEN, accountWithToken, eventually, startListeningApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { refusedUpgrade, subscribe, type Subscriber } from '../../helpers/ws';

jest.setTimeout(30_000);

const sockets: Subscriber[] = [];
// declared first, so that the sockets close before useRelay() closes the pod
afterAll(async () => {
  for (const s of sockets) await s.close();
});
const rq = useRelay({
  listen: true,
  env: { RELAY_MAX_WS_CONNECTIONS_PER_TOKEN: '2' },
  flush: false,
});

const err = (status: number, message: string) => ({
  success: false,
  errors: [{ code: status, message }],
  messages: [],
  result: null,
});

test('the running server has header and request timeouts and answers oversized headers with a 431 envelope', async () => {
  const config = loadConfig({
    ...rq.redis.env,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
  });
  const running: RunningServer = await runServer(config, pino({ level: 'silent' }));
  try {
    expect(running.server.headersTimeout).toBe(20_000);
    expect(running.server.requestTimeout).toBe(60_000);
    expect(running.server.keepAliveTimeout).toBe(65_000);
    const text = await new Promise<string>((resolve) => {
      const socket = net.connect(running.port, '127.0.0.1');
      let out = '';
      socket.on('data', (d) => (out += String(d)));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(out));
      socket.write(
        `GET /v1/relay/channels HTTP/1.1\r\nHost: x\r\nX-Huge: ${'h'.repeat(17_000)}\r\n\r\n`,
      );
    });
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual(
      err(431, 'request headers are over the 16384-byte limit'),
    );
    // The server still serves after refusing.
    const res = await fetch(`http://127.0.0.1:${running.port}/healthz`);
    expect(res.status).toBe(200);
    await res.text();
  } finally {
    await running.shutdown();
  }
});

test('WebSocket connections per token are limited: 429 with Retry-After before the upgrade', async () => {
  const t = await accountWithToken(rq.app, 'acme');
  const path = '/v1/relay/channels/orders/messages/subscribe';
  sockets.push(await subscribe(rq.app, path, t.auth), await subscribe(rq.app, path, t.auth));
  const refused = await refusedUpgrade(rq.app, path, { Authorization: t.auth });
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('5');
  expect(refused.body).toEqual(
    err(
      429,
      'this token already has 2 WebSocket connections on this server (RELAY_MAX_WS_CONNECTIONS_PER_TOKEN)',
    ),
  );
  // Another token of the same account has its own allowance.
  const other = await accountWithToken(rq.app, 'acme');
  sockets.push(await subscribe(rq.app, path, other.auth));
  // A closed connection frees its slot.
  await sockets[0].close();
  await eventually(async () => {
    try {
      sockets.push(await subscribe(rq.app, path, t.auth));
      return true;
    } catch {
      return false;
    }
  }, 3000);
});

test('a multi-channel subscription lists at most 100 channels', async () => {
  const t = await accountWithToken(rq.app, 'multi');
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(',');
  expect(MAX_CHANNELS_PER_SUBSCRIPTION).toBe(100);
  const refused = await refusedUpgrade(rq.app, `/v1/relay/subscribe?channels=${ids(101)}`, {
    Authorization: t.auth,
  });
  expect([refused.status, refused.body]).toEqual([
    400,
    err(400, 'channels must list at most 100 channel ids'),
  ]);
  const socket = await subscribe(rq.app, `/v1/relay/subscribe?channels=${ids(100)}`, t.auth);
  sockets.push(socket);
  const { hello } = socket;
  expect(hello.channels).toHaveLength(100);
});

test('WebSocket upgrades count toward the account’s rate limit: 429 with Retry-After before the upgrade', async () => {
  const limited = await startListeningApp(rq.redis, {
    RELAY_RATE_LIMIT_PER_SECOND: '1',
    RELAY_RATE_LIMIT_BURST: '1',
  });
  try {
    const t = await accountWithToken(limited, 'ratews');
    const path = '/v1/relay/channels/orders/messages/subscribe';
    const first = await subscribe(limited, path, t.auth);
    sockets.push(first);
    const refused = await refusedUpgrade(limited, path, { Authorization: t.auth });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual(
      err(
        429,
        'rate limit exceeded: this account may make 1 request per second in bursts of 1 (rate_limit_per_second 1, rate_limit_burst 1); retry after 1 s',
      ),
    );
    await first.close();
  } finally {
    await limited.close();
  }
});
