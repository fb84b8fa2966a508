/**
 * Graceful shutdown of a real process on a real SIGTERM: the built
 * `node dist/src/cli/main.js serve` (the Dockerfile's and README's command),
 * laid out as in the image (dist/, lua/, node_modules/).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { accountWithToken, ADMIN_TOKEN, eventually, sleep, startApp } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { freePort } from '../../../src/embedded/process';

const ROOT = path.resolve(__dirname, '..', '..', '..');
let image: string;
let redis: TestRedis;
/** every process started, so that a failed test leaves none behind */
const children: ChildProcess[] = [];

interface Reply {
  status: number;
  body: { result: Record<string, unknown> | null; errors: unknown[] };
}

/** One request on its own connection (no keep-alive), so a refused connection shows as an error. */
function call(
  port: number,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, agent: false, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

interface Served {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

async function startProcess(
  graceMs: number,
  redisEnv: Record<string, string> = redis.env,
): Promise<Served> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [path.join(image, 'dist/src/cli/main.js'), 'serve'], {
    cwd: image,
    env: {
      PATH: process.env.PATH,
      ...redisEnv,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
      RELAY_SHUTDOWN_GRACE_MS: String(graceMs),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`relayq exited at start:\n${out}`);
      try {
        return (await call(port, 'GET', '/readyz')).status === 200;
      } catch {
        return false;
      }
    },
    20_000,
    100,
  );
  return { child, port, output: () => out, exited };
}

beforeAll(async () => {
  // build into a scratch copy laid out like the image: dist/, lua/, node_modules/
  image = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-image-'));
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      path.join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      path.join(image, 'dist'),
    ],
    { cwd: ROOT, stdio: 'pipe' },
  );
  fs.cpSync(path.join(ROOT, 'lua'), path.join(image, 'lua'), { recursive: true });
  // as `npm run build` does: the dashboard's static files go next to the compiled code
  fs.cpSync(
    path.join(ROOT, 'src/dashboard/public'),
    path.join(image, 'dist/src/dashboard/public'),
    {
      recursive: true,
    },
  );
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(image, 'node_modules'), 'dir');
  redis = await startRedis();
}, 120_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await redis?.stop();
  if (image) fs.rmSync(image, { recursive: true, force: true });
});

test('SIGTERM: in-flight requests finish with 200, readiness fails, new connections are refused, sockets get 1001, exit 0, nothing acknowledged is lost', async () => {
  const graceMs = 8000;
  const served = await startProcess(graceMs);
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  expect(
    (await call(served.port, 'POST', '/v1/admin/accounts', { id: 'acme' }, admin)).status,
  ).toBe(200);
  const issued = await call(served.port, 'POST', '/v1/admin/accounts/acme/tokens', {}, admin);
  const auth = { Authorization: `Bearer ${issued.body.result!.token as string}` };

  // a WebSocket subscriber
  const ws = new WebSocket(
    `ws://127.0.0.1:${served.port}/v1/relay/channels/orders/messages/subscribe`,
    { headers: auth },
  );
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

  // a long poll on an empty channel, far longer than the grace period
  const longPoll = call(
    served.port,
    'POST',
    '/v1/relay/channels/idle/messages/pull',
    { wait_ms: 20_000 },
    auth,
  );

  // a slow request: headers and half of the body now, the rest after SIGTERM
  const slowBody = JSON.stringify({ body: { slow: true } });
  let slowReq!: http.ClientRequest;
  const slow = new Promise<Reply>((resolve, reject) => {
    slowReq = http.request(
      {
        host: '127.0.0.1',
        port: served.port,
        method: 'POST',
        path: '/v1/relay/channels/orders/messages',
        agent: false,
        headers: {
          ...auth,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(slowBody),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    slowReq.on('error', reject);
  });
  slowReq.write(slowBody.slice(0, 10));

  // senders that keep sending until the server refuses them
  const acknowledged: string[] = [];
  const refusals: string[] = [];
  let stopSending = false;
  const sender = async (n: number) => {
    for (let i = 0; !stopSending; i++) {
      try {
        const res = await call(
          served.port,
          'POST',
          '/v1/relay/channels/orders/messages',
          { body: { n, i } },
          auth,
        );
        if (res.status === 200) acknowledged.push(res.body.result!.id as string);
      } catch (err) {
        refusals.push((err as NodeJS.ErrnoException).code ?? String(err));
        return;
      }
    }
  };
  const senders = [1, 2, 3, 4].map(sender);
  await eventually(() => acknowledged.length >= 20, 10_000);
  await sleep(100); // the long poll is waiting by now

  const signalled = Date.now();
  served.child.kill('SIGTERM');
  // readiness fails at once: the listener is closed (refused) or answers 503
  await sleep(200);
  const ready = await call(served.port, 'GET', '/readyz').then(
    (res) => res.status,
    (err: NodeJS.ErrnoException) => err.code,
  );
  expect([503, 'ECONNREFUSED']).toContain(ready);
  // new connections are refused
  await expect(call(served.port, 'GET', '/healthz')).rejects.toMatchObject({
    code: 'ECONNREFUSED',
  });

  // the slow request in flight completes
  slowReq.end(slowBody.slice(10));
  const slowReply = await slow;
  expect(slowReply.status).toBe(200);
  acknowledged.push(slowReply.body.result!.id as string);

  // the long poll answers early with an empty batch
  const polled = await longPoll;
  expect(polled.status).toBe(200);
  expect(polled.body.result).toEqual({ message_backlog_count: 0, messages: [] });

  expect(await wsClosed).toBe(1001);
  stopSending = true;
  await Promise.all(senders);
  expect(refusals.length).toBeGreaterThan(0);
  // refused, or reset when the kernel had queued the connection before the listener closed
  for (const code of refusals) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(code);

  const exit = await served.exited;
  expect(exit).toEqual({ code: 0, signal: null });
  expect(Date.now() - signalled).toBeLessThan(graceMs);
  expect(served.output()).toContain('"msg":"stopped"');

  // every message that got a 200 is there
  const app = await startApp(redis);
  try {
    const { auth: after } = await accountWithToken(app, 'acme');
    const stored: string[] = [];
    for (;;) {
      const res = await app.http
        .post('/v1/relay/channels/orders/messages/pull')
        .set('Authorization', after)
        .send({ batch_size: 100 });
      expect(res.status).toBe(200);
      if (res.body.result.messages.length === 0) break;
      stored.push(...res.body.result.messages.map((m: { id: string }) => m.id));
    }
    expect(stored.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(new Set(stored)).toEqual(new Set([...acknowledged, ...stored]));
    for (const id of acknowledged) expect(stored).toContain(id);
  } finally {
    await app.close();
  }
}, 60_000);

test('SIGTERM with a request that never finishes: cut at the grace period, still exit 0', async () => {
  const graceMs = 1500;
  const served = await startProcess(graceMs);
  const stuck = new net.Socket();
  await new Promise<void>((resolve) => stuck.connect(served.port, '127.0.0.1', resolve));
  stuck.on('error', () => undefined);
  const stuckClosed = new Promise<void>((resolve) => stuck.once('close', () => resolve()));
  // headers and no body: the request stays in flight
  stuck.write(
    'POST /v1/relay/channels/x/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"bo',
  );
  await sleep(200);
  const signalled = Date.now();
  served.child.kill('SIGTERM');
  const exit = await served.exited;
  const took = Date.now() - signalled;
  expect(exit).toEqual({ code: 0, signal: null });
  expect(took).toBeGreaterThanOrEqual(graceMs - 100);
  expect(took).toBeLessThan(graceMs + 5000);
  await stuckClosed;
}, 60_000);

test('SIGTERM in the embedded mode: redis-server stops cleanly, exit 0, and the data is there on the next start', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-data-'));
  try {
    const embedded = { RELAY_DATA_DIR: dataDir };
    const first = await startProcess(3000, embedded);
    // the quick start writes its credentials right after the server is listening
    const tokenFile = path.join(dataDir, 'local-token');
    await eventually(async () => fs.existsSync(tokenFile), 10_000);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    const auth = { Authorization: `Bearer ${token}` };
    const sent = await call(
      first.port,
      'POST',
      '/v1/relay/channels/kept/messages',
      { body: 'kept' },
      auth,
    );
    expect(sent.status).toBe(200);
    const redisPid = Number(fs.readFileSync(path.join(dataDir, 'redis.pid'), 'utf8'));
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(() => process.kill(redisPid, 0)).toThrow(); // the redis-server child is gone
    expect(fs.readFileSync(path.join(dataDir, 'redis.log'), 'utf8')).toMatch(
      /ready to exit, bye bye/,
    );

    const second = await startProcess(3000, embedded);
    try {
      const pulled = await call(
        second.port,
        'POST',
        '/v1/relay/channels/kept/messages/pull',
        {},
        auth,
      );
      expect(pulled.status).toBe(200);
      expect(pulled.body.result!.messages).toEqual([
        expect.objectContaining({ id: sent.body.result!.id, body: 'kept' }),
      ]);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
