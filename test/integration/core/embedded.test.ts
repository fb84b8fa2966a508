/**
 * The built server entry (`relayq serve`) in its embedded default: no REDIS_URL,
 * a private redis-server child with its data under RELAY_DATA_DIR.
 */
import { execFileSync } from 'node:child_process';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import {
  relayq,
  ROOT,
  startEmbedded as startIn,
  stopAllRelayq,
  type RelayqProcess,
} from '../../helpers/relayqProcess';
import { freePort, isAlive } from '../../../src/embedded/process';

jest.setTimeout(60_000);

/** Runs `relayq serve` with only the given environment (plus PATH and HOME). */
function serve(env: Record<string, string>, flags: string[] = []): RelayqProcess {
  return relayq(['serve', ...flags], env);
}

let dataDir = '';

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rq-emb-'));
}, 120_000);
afterAll(async () => {
  await stopAllRelayq();
  const pidFile = path.join(dataDir, 'redis.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    if (pid > 1 && isAlive(pid)) process.kill(pid, 'SIGTERM');
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the embedded mode and waits for its quick-start lines (`printed`: with credentials). */
async function startEmbedded(printed = true, flags: string[] = []) {
  const started = await startIn(dataDir, printed, flags);
  const out = started.run.stdout();
  const link = /^\s*(http:\S+\/dashboard\/#owner_token=\S+)$/m.exec(out)?.[1] ?? '';
  const curl =
    out
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('curl ') && l.includes('/messages') && !l.includes('/pull')) ?? '';
  return { ...started, link, curl };
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
  // The printed SQS lines run as printed with the AWS CLI (which needs a region), and the
  // saved file, sourced, serves boto3 (docs/sqs.md's line).
  const awsFile = path.join(dataDir, 'local-aws-credentials');
  expect(fs.readFileSync(awsFile, 'utf8')).toBe(
    `export AWS_ACCESS_KEY_ID=${accessKeyId}\nexport AWS_SECRET_ACCESS_KEY=${secretAccessKey}\n` +
      'export AWS_DEFAULT_REGION=us-east-1\nexport AWS_REGION=us-east-1\n',
  );
  expect(fs.statSync(awsFile).mode & 0o777).toBe(0o600);
  const sqsLines = first.run
    .stdout()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('export AWS_') || l.startsWith('aws sqs '));
  expect(sqsLines).toEqual([
    `export AWS_ACCESS_KEY_ID=${accessKeyId}`,
    `export AWS_SECRET_ACCESS_KEY=${secretAccessKey}`,
    'export AWS_DEFAULT_REGION=us-east-1',
    'export AWS_REGION=us-east-1',
    `aws sqs create-queue --queue-name demo --endpoint-url http://localhost:${first.port}/sqs`,
  ]);
  const noAwsConfig = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.tmpdir(),
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  };
  const created = execFileSync('sh', ['-c', sqsLines.join('\n')], {
    env: noAwsConfig,
    encoding: 'utf8',
  });
  expect(JSON.parse(created)).toEqual({
    QueueUrl: `http://localhost:${first.port}/sqs/local/demo`,
  });
  const boto3 = execFileSync(
    'sh',
    [
      '-c',
      `. ${awsFile} && python3 -c 'import boto3; print(boto3.client("sqs", endpoint_url="http://localhost:${first.port}/sqs").list_queues()["QueueUrls"])'`,
    ],
    { env: noAwsConfig, encoding: 'utf8' },
  );
  expect(boto3.trim()).toBe(`['http://localhost:${first.port}/sqs/local/demo']`);
  // a webhook delivery through the real server (its receiver is answered in front of the app)
  const hook = await post(first.base, first.token, '/v1/relay/channels/hooked/webhooks', {});
  const delivered = await fetch(`${hook.body.result.url}?source=embedded`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"event":"ping"}',
  });
  expect(delivered.status).toBe(200);
  const hooked = await post(first.base, first.token, '/v1/relay/channels/hooked/messages/pull', {});
  const received = hooked.body.result.messages[0];
  expect(received.body).toBe('{"event":"ping"}');
  expect(received.metadata.webhook).toMatchObject({ method: 'POST', query: 'source=embedded' });

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
  expect(second.run.stdout()).toContain('run `npx relayq credentials` (in another terminal)');
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
    await eventually(() => run.stdout().includes('relayq listening'), 20_000, 50);
    expect(run.stdout()).not.toContain('RELAY_TOKEN');
    // (the sweeper's partition leases, under {~due<n>}, are no account's keys)
    expect((await redis.keys('*')).filter((key) => !key.startsWith('rq:{~due'))).toEqual([]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
