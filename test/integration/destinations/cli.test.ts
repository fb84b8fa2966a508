/** `relayq destinations ...` end to end: the built CLI against a real relay. */
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { useRelay } from '../../helpers/useRelay';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}, 120_000);
const rq = useRelay({ listen: true, account: 'dcli' });

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('create (secret shown once), show, pause, resume, attempts, delete', async () => {
  const created = await run([
    'destinations',
    'create',
    'orders',
    '--to',
    'https://example.com/in',
    '--rate',
    '50/1s',
    '--parallelism',
    '2',
    '--header',
    'X-Token: abc',
    '--paused',
    '--json',
  ]);
  expect(created.code).toBe(0);
  const d = JSON.parse(created.stdout);
  expect(d).toMatchObject({
    url: 'https://example.com/in',
    state: 'paused',
    parallelism: 2,
    rateLimit: { count: 50, periodSeconds: 1 },
    headers: { 'X-Token': 'abc' },
  });
  expect(d.secret).toMatch(/^whsec_/);
  const shown = await run(['destinations', 'show', 'orders', '--json']);
  expect(JSON.parse(shown.stdout)).toMatchObject({ id: d.id, state: 'paused', deadCount: 0 });
  expect(shown.stdout).not.toContain(d.secret);
  const resumed = await run(['destinations', 'resume', 'orders', '--json']);
  expect(JSON.parse(resumed.stdout).state).toBe('active');
  const paused = await run(['destinations', 'pause', 'orders', '--json']);
  expect(JSON.parse(paused.stdout).state).toBe('paused');
  const redriven = await run(['destinations', 'redrive', 'orders', '--max', '10', '--json']);
  expect(redriven.code).toBe(0);
  expect(JSON.parse(redriven.stdout)).toEqual({ movedCount: 0 });
  const missing = await run(['destinations', 'redrive', 'nowhere']);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('channel nowhere does not exist');
  const attempts = await run(['destinations', 'attempts', 'orders', '--json']);
  expect(JSON.parse(attempts.stdout)).toEqual({ attempts: [], nextCursor: null });
  const deleted = await run(['destinations', 'delete', 'orders']);
  expect(deleted.code).toBe(0);
  // (stdout is not a terminal: JSON)
  expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true });
  const none = await run(['destinations', 'list', 'orders']);
  expect(JSON.parse(none.stdout)).toEqual({ destinations: [] });
}, 60_000);
