/**
 * The built server entry (`relayq serve`) in its embedded default: no REDIS_URL,
 * a private redis-server child with its data under RELAY_DATA_DIR.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../../helpers/app';
import { redisServerBinary, startRedis, type TestRedis } from '../../helpers/redis';
import { freePort } from '../../../src/localProcess';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../../..');
const ENTRY = path.join(ROOT, 'dist/src/cli/main.js');

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs `relayq serve` with only the given environment (plus PATH and HOME). */
function serve(env: Record<string, string>, flags: string[] = []): Running {
  const child = spawn(process.execPath, [ENTRY, 'serve', ...flags], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const started: Running[] = [];
let dataDir = '';

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rq-emb-'));
}, 120_000);
afterAll(async () => {
  for (const r of started) {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  }
  const pidFile = path.join(dataDir, 'redis.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (pid > 1 && isAlive(pid)) process.kill(pid, 'SIGTERM');
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the embedded mode and waits for its quick-start lines (`printed`: with credentials). */
async function startEmbedded(
  printed = true,
  flags: string[] = [],
): Promise<{
  run: Running;
  base: string;
  port: number;
  token: string;
  link: string;
  curl: string;
}> {
  const port = await freePort();
  const metricsPort = await freePort();
  const run = serve(
    {
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      RELAY_DATA_DIR: dataDir,
      REDIS_SERVER_BIN: redisServerBinary(),
    },
    flags,
  );
  started.push(run);
  const ready = printed ? /export RELAY_TOKEN=\S+/ : /^Dashboard: /m;
  await eventually(() => ready.test(run.stdout()) || run.child.exitCode !== null, 20_000, 50);
  expect(run.child.exitCode).toBeNull();
  const token = /export RELAY_TOKEN=(\S+)/.exec(run.stdout())?.[1] ?? '';
  const link = /^\s*(http:\S+\/dashboard\/#owner_token=\S+)$/m.exec(run.stdout())?.[1] ?? '';
  const curl =
    run
      .stdout()
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('curl ') && l.includes('/messages') && !l.includes('/pull')) ?? '';
  return { run, base: `http://127.0.0.1:${port}`, port, token, link, curl };
}

/** Signs in at the dashboard API with the owner token of a quick-start link. */
async function signInWith(base: string, link: string): Promise<number> {
  const ownerToken = new URL(link).hash.replace('#owner_token=', '');
  const res = await fetch(`${base}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: ownerToken }),
  });
  return res.status;
}

async function post(base: string, token: string, url: string, body: unknown) {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { result: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

test('first start prints a token and a curl line that work; SIGTERM stops it and its redis-server; data survive a restart', async () => {
  const first = await startEmbedded();
  expect(first.link).toMatch(/^http:\/\/localhost:\d+\/dashboard\/#owner_token=rq_\S+_local$/);
  expect(first.curl).toContain('Authorization: Bearer $RELAY_TOKEN');
  // The printed curl line sends a message, as printed.
  const curlOut = execFileSync('sh', ['-c', first.curl], {
    env: { PATH: process.env.PATH ?? '', RELAY_TOKEN: first.token },
    encoding: 'utf8',
  });
  expect(JSON.parse(curlOut)).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { id: expect.any(String) },
  });
  // send/pull/ack with the printed token
  const demo = '/v1/relay/channels/demo/messages';
  const pulled = await post(first.base, first.token, `${demo}/pull`, {});
  expect(pulled.status).toBe(200);
  expect(pulled.body.result.messages.map((m: { body: unknown }) => m.body)).toEqual([
    { hello: 'world' },
  ]);
  const acked = await post(first.base, first.token, `${demo}/ack`, {
    lease_ids: [pulled.body.result.messages[0].lease_id],
  });
  expect(acked.body.result).toEqual({ acked_count: 1 });
  const kept = await post(first.base, first.token, demo, { body: 'kept across restarts' });
  expect(kept.status).toBe(200);
  expect(fs.readFileSync(path.join(dataDir, 'local-token'), 'utf8').trim()).toBe(first.token);
  // the quick start's token also has AWS credentials, for the SQS endpoint (docs/sqs.md)
  const accessKeyId = /export AWS_ACCESS_KEY_ID=(\S+)/.exec(first.run.stdout())![1];
  const secretAccessKey = /export AWS_SECRET_ACCESS_KEY=(\S+)/.exec(first.run.stdout())![1];
  const sqs = new SQSClient({
    endpoint: `${first.base}/sqs`,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey },
  });
  const listed = await sqs.send(new ListQueuesCommand({}));
  sqs.destroy();
  expect(listed.QueueUrls).toEqual([`${first.base}/sqs/local/demo`]);
  expect(fs.statSync(path.join(dataDir, 'sqs-secret-key')).mode & 0o777).toBe(0o600);

  const redisPid = Number(fs.readFileSync(path.join(dataDir, 'redis.pid'), 'utf8'));
  expect(isAlive(redisPid)).toBe(true);
  first.run.child.kill('SIGTERM');
  expect(await first.run.exited).toBe(0);
  await eventually(() => !isAlive(redisPid), 5000);
  // append-only data on disk
  const files = fs.readdirSync(dataDir);
  expect(files.some((f) => f.startsWith('appendonly') || f === 'appendonlydir')).toBe(true);

  // A restart keeps the account and prints where the credentials are, not them.
  const second = await startEmbedded(false);
  expect(second.run.stdout()).not.toContain('rq_');
  expect(second.run.stdout()).toContain(`Dashboard: http://localhost:${second.port}/dashboard/`);
  expect(second.run.stdout()).toContain('--print-credentials');
  const again = await post(second.base, first.token, `${demo}/pull`, {});
  expect(again.body.result.messages.map((m: { body: unknown }) => m.body)).toEqual([
    'kept across restarts',
  ]);
  second.run.child.kill('SIGTERM');
  expect(await second.run.exited).toBe(0);
});

test('the first start prints a dashboard sign-in link for the owner; --print-credentials prints it again', async () => {
  // (runs after the first test: the data dir already holds the local account)
  const asked = await startEmbedded(true, ['--print-credentials']);
  expect(asked.token).toBe(fs.readFileSync(path.join(dataDir, 'local-token'), 'utf8').trim());
  const ownerFile = path.join(dataDir, 'local-owner-token');
  expect(fs.statSync(ownerFile).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.join(dataDir, 'local-token')).mode & 0o777).toBe(0o600);
  const owner = fs.readFileSync(ownerFile, 'utf8').trim();
  expect(asked.link).toBe(`http://localhost:${asked.port}/dashboard/#owner_token=${owner}`);
  // The owner token of the link opens a dashboard session at once; the relay token does not.
  expect(await signInWith(asked.base, asked.link)).toBe(200);
  expect(await signInWith(asked.base, `http://x/#owner_token=${asked.token}`)).toBe(401);
  asked.run.child.kill('SIGTERM');
  expect(await asked.run.exited).toBe(0);
});

test('a missing redis-server stops the start with how to install it or set REDIS_URL', async () => {
  const run = serve({
    PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    RELAY_DATA_DIR: path.join(dataDir, 'none'),
    REDIS_SERVER_BIN: '/nonexistent/redis-server',
  });
  started.push(run);
  expect(await run.exited).toBe(1);
  expect(run.stderr()).toContain('cannot run "/nonexistent/redis-server"');
  expect(run.stderr()).toContain('apt-get install redis-server');
  expect(run.stderr()).toContain('REDIS_URL');
});

test('a bad setting stops the start with a message naming it', async () => {
  for (const [env, message] of [
    [{ PORT: 'eighty' }, 'PORT must be a whole number, got "eighty"'],
    [{ RELAY_PLANS: '{"free":{"retention_seconds":0}}' }, 'RELAY_PLANS.free.retention_seconds'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL must'],
  ] as const) {
    const run = serve({ RELAY_DATA_DIR: path.join(dataDir, 'bad'), ...env });
    started.push(run);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('relayq: invalid configuration: ');
    expect(run.stderr()).toContain(message);
  }
});

describe('with REDIS_URL (production mode)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  test('no quick-start account or token is made', async () => {
    const port = await freePort();
    const run = serve({
      ...redis.env,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      RELAY_DATA_DIR: path.join(dataDir, 'prod'),
      LOG_LEVEL: 'info',
    });
    started.push(run);
    await eventually(() => run.stdout().includes('relayq listening'), 20_000, 50);
    expect(run.stdout()).not.toContain('RELAY_TOKEN');
    // (the sweeper's partition leases, under {~due<n>}, are no account's keys)
    expect((await redis.keys('*')).filter((key) => !key.startsWith('rq:{~due'))).toEqual([]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
