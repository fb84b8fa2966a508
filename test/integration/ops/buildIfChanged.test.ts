/**
 * `npm start` builds only when a source changed (scripts/build-if-changed.cjs):
 * a second run skips the build; a changed source is rebuilt on the next run,
 * also by the clone's `relayq` command (scripts/relayq.cjs).
 * Runs the script on this checkout and leaves it as found (the probe source
 * and its output removed, the stamp put back).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/build-if-changed.cjs');
const STAMP = path.join(ROOT, 'dist/.build-inputs.json');
const MAIN = path.join(ROOT, 'dist/src/cli/main.js');
const PROBE = `buildProbe${process.pid}`;
const probeSource = path.join(ROOT, 'src', `${PROBE}.ts`);
const probeOutput = path.join(ROOT, 'dist/src', `${PROBE}.js`);

async function buildIfChanged(...flags: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [SCRIPT, ...flags], { cwd: ROOT });
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout + failed.stderr };
  }
}

let stampBefore: string | null = null;
afterAll(() => {
  fs.rmSync(probeSource, { force: true });
  fs.rmSync(probeOutput, { force: true });
  // the probe's build left a stamp listing the probe: put back the one of the untouched sources
  if (stampBefore !== null) fs.writeFileSync(STAMP, stampBefore);
});

test('the second start skips the build; a changed source is rebuilt on the next', async () => {
  const first = await buildIfChanged();
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/^build: (up to date|.* building)/);
  stampBefore = fs.readFileSync(STAMP, 'utf8');
  const builtAt = fs.statSync(MAIN).mtimeMs;

  const second = await buildIfChanged();
  expect(second).toEqual({
    code: 0,
    stdout: 'build: up to date (no source changed since the last build)\n',
  });
  expect(fs.statSync(MAIN).mtimeMs).toBe(builtAt);
  expect(await buildIfChanged('--check')).toEqual(second);

  // a new source: --check says so without building; the next run builds it
  fs.writeFileSync(probeSource, 'export const probe = 1;\n');
  expect(await buildIfChanged('--check')).toEqual({
    code: 1,
    stdout: `build: needed: src/${PROBE}.ts changed since the last build\n`,
  });
  expect(fs.existsSync(probeOutput)).toBe(false);
  // the relayq command of a clone (npx relayq, npm link) builds it before it runs,
  // saying so on stderr only
  const relayq = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) =>
      execFile(
        process.execPath,
        [path.join(ROOT, 'scripts/relayq.cjs'), '--help'],
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      ),
  );
  expect(relayq).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^Usage: relayq /),
    stderr: `build: src/${PROBE}.ts changed since the last build; building\n`,
  });
  expect(fs.existsSync(probeOutput)).toBe(true);
  expect((await buildIfChanged()).stdout).toBe(second.stdout);

  // a missing output is rebuilt whatever the stamp says
  fs.rmSync(probeOutput);
  fs.renameSync(MAIN, `${MAIN}.aside`);
  try {
    expect(await buildIfChanged('--check')).toEqual({
      code: 1,
      stdout: 'build: needed: dist/src/cli/main.js is missing\n',
    });
  } finally {
    fs.renameSync(`${MAIN}.aside`, MAIN);
  }
}, 300_000);
