/**
 * One relayq per data directory (issue 30): a second `relayq serve`,
 * `serve --print-credentials` or `relayq credentials` against a running
 * embedded install touches nothing of it; a lock left by a dead relayq is
 * taken over. The built CLI, run as processes on a real redis-server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../../helpers/app';
import {
  embeddedEnv,
  processesNaming,
  relayqDone,
  ROOT,
  startEmbedded,
  stopAllRelayq,
  type EmbeddedRun,
} from '../../helpers/relayqProcess';
import { isAlive, processStartTime } from '../../../src/embedded/process';

jest.setTimeout(90_000);

let dataDir = '';
beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
}, 180_000);
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rq-lock-'));
});
afterEach(async () => {
  await stopAllRelayq();
  for (const line of processesNaming(dataDir)) process.kill(Number(line.split(':')[0]), 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const lockFile = () => path.join(dataDir, 'relayq.lock');
const redisPid = () => Number(fs.readFileSync(path.join(dataDir, 'redis.pid'), 'utf8'));

async function sendAndPull(first: EmbeddedRun, body: string): Promise<unknown[]> {
  const call = async (url: string, payload: unknown) => {
    const res = await fetch(`${first.base}/v1/relay/channels/demo/messages${url}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}` },
      body: JSON.stringify(payload),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { messages?: { body: unknown }[] } }).result;
  };
  await call('', { body });
  return (await call('/pull', {})).messages!.map((m) => m.body);
}

/** Stops the first relayq and checks that nothing of it is left: redis-server, lock, processes. */
async function stopAndCheckNothingLeft(first: EmbeddedRun, redis: number): Promise<void> {
  first.run.child.kill('SIGTERM');
  expect(await first.run.exited).toBe(0);
  await eventually(() => !isAlive(redis), 5000);
  expect(fs.existsSync(lockFile())).toBe(false);
  expect(processesNaming(dataDir)).toEqual([]);
}

test('a second serve, serve --print-credentials and credentials leave a running embedded relayq alone', async () => {
  const first = await startEmbedded(dataDir);
  const redis = redisPid();
  const pid = first.run.child.pid!;
  const lock = fs.readFileSync(lockFile(), 'utf8');
  expect(JSON.parse(lock)).toEqual({ pid, started: processStartTime(pid), port: first.port });
  const printed = first.run.stdout();
  const awsKeys = printed.split('\n').filter((l) => l.trim().startsWith('export AWS_'));
  expect(awsKeys.map((l) => l.trim().replace(/=.*/, ''))).toEqual([
    'export AWS_ACCESS_KEY_ID',
    'export AWS_SECRET_ACCESS_KEY',
    'export AWS_DEFAULT_REGION',
    'export AWS_REGION',
  ]);

  // `serve --print-credentials` on another port: prints the saved credentials, starts nothing
  const asked = await relayqDone(['serve', '--print-credentials'], await embeddedEnv(dataDir));
  expect([asked.code, asked.stderr]).toEqual([0, '']);
  const head =
    `relayq (pid ${pid}) is running on http://localhost:${first.port} with its data in ${dataDir}.\n` +
    'Credentials of the local account "local" (saved there, mode 0600):\n\n';
  const block = printed.slice(printed.indexOf('Open the dashboard'));
  expect(asked.stdout).toBe(head + block);
  expect(block).toContain(`export RELAY_TOKEN=${first.token}\n`);
  for (const line of awsKeys) expect(block).toContain(`${line}\n`);
  expect(block).toContain('  export AWS_DEFAULT_REGION=us-east-1\n');

  // `relayq credentials` prints the same, whatever PORT says
  const credentials = await relayqDone(['credentials'], { RELAY_DATA_DIR: dataDir, PORT: '1' });
  expect(credentials).toEqual({ code: 0, stdout: head + block, stderr: '' });

  // a second serve, on another port and on the same one: refused, exit 1
  const inUse =
    `relayq: a relayq (pid ${pid}, port ${first.port}) uses the data directory ${dataDir}; ` +
    'stop it first, or set RELAY_DATA_DIR to another directory\n';
  const other = await relayqDone(['serve'], {
    ...(await embeddedEnv(dataDir)),
    LOG_LEVEL: 'silent',
  });
  expect(other).toEqual({ code: 1, stdout: '', stderr: inUse });
  const same = await relayqDone(['serve'], {
    ...(await embeddedEnv(dataDir)),
    PORT: String(first.port),
    LOG_LEVEL: 'silent',
  });
  expect(same).toEqual({ code: 1, stdout: '', stderr: inUse });

  // the first keeps serving on its redis-server, the only one of the data dir; the lock is its own
  expect(isAlive(redis)).toBe(true);
  expect(redisPid()).toBe(redis);
  expect(processesNaming(dataDir).filter((p) => p.includes('redis-server'))).toHaveLength(1);
  expect(await sendAndPull(first, 'still here')).toEqual(['still here']);
  expect(first.run.stderr()).toBe('');
  expect(fs.readFileSync(lockFile(), 'utf8')).toBe(lock);

  await stopAndCheckNothingLeft(first, redis);
  // with no relayq running, `credentials` still prints them, on PORT's address
  const idle = await relayqDone(['credentials'], { RELAY_DATA_DIR: dataDir, PORT: '8123' });
  expect(idle.code).toBe(0);
  expect(idle.stdout).toContain(
    `No relayq is running with its data in ${dataDir} (start it with \`npm start\`); the addresses below use PORT (8123).\n`,
  );
  expect(idle.stdout).toContain(`export RELAY_TOKEN=${first.token}\n`);
});

test('a lock left by a killed relayq is taken over, with the redis-server it left running', async () => {
  const first = await startEmbedded(dataDir);
  const leftover = redisPid();
  first.run.child.kill('SIGKILL');
  await first.run.exited;
  expect(isAlive(leftover)).toBe(true);
  expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(first.run.child.pid);

  const second = await startEmbedded(dataDir, false);
  expect(isAlive(leftover)).toBe(false);
  expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(second.run.child.pid);
  expect(await sendAndPull({ ...second, token: first.token }, 'after a kill')).toEqual([
    'after a kill',
  ]);
  await stopAndCheckNothingLeft(second, redisPid());
});

test('a lock whose pid is now another process (another start time) is stale', async () => {
  // this test's own pid is alive, but did not write the lock
  fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, started: '1', port: 9 }));
  const started = await startEmbedded(dataDir);
  expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(started.run.child.pid);
  await stopAndCheckNothingLeft(started, redisPid());
});

test('credentials before any start say why, exit 1 and make nothing', async () => {
  const none = await relayqDone(['credentials'], { RELAY_DATA_DIR: dataDir });
  expect(none).toEqual({
    code: 1,
    stdout: '',
    stderr:
      `relayq: no quick-start credentials in ${dataDir}: the embedded mode (no REDIS_URL) makes ` +
      'them on its first start (npm start); RELAY_DATA_DIR names another directory\n',
  });
  expect(fs.readdirSync(dataDir)).toEqual([]);
});
