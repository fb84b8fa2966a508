/**
 * The packed-tarball proof: `npm pack` of packages/client, installed into an
 * empty project, imported (ES module and CommonJS) by a script that sends,
 * pulls, acks and consumes against a running relay; its installed tree holds
 * nothing of the server, and its bin works on its own.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { ROOT, runCli } from './support';

const SERVER_PACKAGES = ['express', 'ioredis', 'pino', 'prom-client', 'ajv', 'relayq'];

let dir: string;

/** Async, so that the relay in this process answers while the script runs. */
const node = async (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  (await promisify(execFile)(process.execPath, [script], { cwd, env, encoding: 'utf8' })).stdout;

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
  });

const rq = useRelay({ listen: true, flush: false });
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'relayq-app-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('npm pack, install into an empty project, use it against a relay', async () => {
  // built without --clean, packed without prepack: other test files may run the CLI meanwhile
  const packageRoot = path.join(ROOT, 'packages/client');
  npm(['run', 'build', '--silent'], packageRoot);
  const packed = JSON.parse(
    npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], packageRoot),
  )[0];
  const files: string[] = packed.files.map((f: { path: string }) => f.path);
  expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
  expect(files.every((f) => /^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(f))).toBe(true);
  expect(files.some((f) => f.startsWith('src/'))).toBe(false);
  // a plain `npm pack` leaves the tarball in the package (or the repository root): git ignores it
  for (const where of ['packages/client', '.']) {
    const tarball = path.join(where, packed.filename);
    expect(execFileSync('git', ['check-ignore', tarball], { cwd: ROOT, encoding: 'utf8' })).toBe(
      `${tarball}\n`,
    );
  }

  // pages load the ES modules as they are: no node: module, ws only through a dynamic import
  const esm = files.filter((f) => f.startsWith('dist/esm/') && f.endsWith('.js'));
  expect(esm.length).toBeGreaterThan(8);
  for (const file of esm) {
    const code = readFileSync(path.join(packageRoot, file), 'utf8');
    expect([file, /from ['"]node:|require\(/.test(code)]).toEqual([file, false]);
    expect([file, /^import .* from ['"]ws['"]/m.test(code)]).toEqual([file, false]);
  }

  const project = path.join(dir, 'app');
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(path.join(project, 'package.json'), '{ "name": "app", "private": true }\n');
  npm(['install', path.join(dir, packed.filename)], project);

  const tree = JSON.parse(npm(['ls', '--all', '--json'], project));
  const names = new Set<string>();
  type Dep = { version?: string; missing?: boolean; dependencies?: Record<string, Dep> };
  const walk = (deps: Record<string, Dep> = {}) => {
    for (const [name, dep] of Object.entries(deps)) {
      // ws's optional peers (bufferutil, utf-8-validate) are listed but not installed
      if (dep.missing || !dep.version) continue;
      names.add(name);
      walk(dep.dependencies);
    }
  };
  walk(tree.dependencies);
  expect([...names].sort()).toEqual(['@relayq/client', 'commander', 'ws']);
  for (const server of SERVER_PACKAGES) expect(names.has(server)).toBe(false);

  const { token } = await accountWithToken(rq.app, 'acme');
  writeFileSync(
    path.join(project, 'use.mjs'),
    `import { RelayClient, RelayError } from '@relayq/client';
const client = new RelayClient({ url: process.env.RELAY_URL, token: process.env.RELAY_TOKEN });
const { id } = await client.send('orders', { body: { n: 1 }, contentType: 'json' });
const pulled = await client.pull('orders', { batchSize: 1 });
const acked = await client.ack('orders', [pulled.messages[0].leaseId]);
await client.sendBatch('orders', [{ body: 2 }, { body: 3 }]);
const handled = [];
await new Promise((resolve) => {
  const consumer = client.consume('orders', (m) => {
    handled.push(m.body);
    if (handled.length === 2) consumer.stop().then(resolve);
  });
});
const err = await client.pull('.bad').catch((e) => e);
console.log(JSON.stringify({ sent: id === pulled.messages[0].id, acked, handled,
  error: err instanceof RelayError ? err.status : null }));
`,
  );
  writeFileSync(
    path.join(project, 'use.cjs'),
    `const { RelayClient } = require('@relayq/client');
new RelayClient({ url: process.env.RELAY_URL, token: process.env.RELAY_TOKEN })
  .channels().then((list) => console.log(JSON.stringify(list)));
`,
  );
  const env = { ...process.env, RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: token };
  const esmRun = await node('use.mjs', project, env);
  expect(JSON.parse(esmRun)).toEqual({
    sent: true,
    acked: { ackedCount: 1 },
    handled: [2, 3],
    error: 400,
  });
  const cjs = await node('use.cjs', project, env);
  expect(JSON.parse(cjs).channels).toEqual([
    expect.objectContaining({ id: 'orders', queued: 0, inFlight: 0 }),
  ]);

  const bin = path.join(project, 'node_modules/.bin/relayq-client');
  const run = await runCli(bin, ['channels', 'list', '--json'], {
    RELAY_URL: rq.app.baseUrl,
    RELAY_TOKEN: token,
    XDG_CONFIG_HOME: dir,
  });
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(run.stdout).channels.map((c: { id: string }) => c.id)).toEqual(['orders']);
}, 240_000);
