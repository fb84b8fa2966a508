/**
 * The operator CLI end to end: the built `relayq` binary against a real
 * listening server, through RELAY_URL / RELAY_ADMIN_TOKEN or the flags.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { ADMIN_TOKEN, startListeningApp, type ListeningApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** The CLI, transpiled from src/ as `npm run build` would (type checks are `npm run typecheck`'s job). */
const BUILD = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-cli-'));
/** The transpiled files live outside the checkout: node finds the packages through NODE_PATH. */
const NODE_PATH = path.join(ROOT, 'node_modules');
const MAIN = path.join(BUILD, 'src', 'cli', 'main.js');

const rq = useRelay({ listen: true, flush: false });
let redis: TestRedis;
let app: ListeningApp;
beforeAll(() => ({ redis, app } = rq));

function transpileTree(dir: string, options: ts.CompilerOptions): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      transpileTree(full, options);
    } else if (entry.name.endsWith('.ts')) {
      const out = path.join(BUILD, path.relative(ROOT, full)).replace(/\.ts$/, '.js');
      const { outputText } = ts.transpileModule(fs.readFileSync(full, 'utf8'), {
        compilerOptions: options,
        fileName: full,
      });
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, outputText);
    }
  }
}

beforeAll(async () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.build.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('cannot read tsconfig.build.json');
  transpileTree(path.join(ROOT, 'src'), {
    ...config.options,
    sourceMap: false,
    declaration: false,
  });
}, 30_000);
afterAll(() => fs.rmSync(BUILD, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function relayq(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_PATH,
          RELAY_URL: app.baseUrl,
          RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
          ...env,
        },
        timeout: 20_000,
      },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

const json = (run: Run) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
};

test('accounts: create, show, set-plan, delete', async () => {
  expect(json(await relayq(['accounts', 'create', 'acme', '--plan', 'paid']))).toEqual({
    id: 'acme',
    plan: 'paid',
  });
  expect(json(await relayq(['accounts', 'show', 'acme']))).toEqual({
    id: 'acme',
    plan: 'paid',
    usage: { storage_bytes: 0, channels: 0 },
  });
  expect(json(await relayq(['accounts', 'set-plan', 'acme', 'free']))).toEqual({
    id: 'acme',
    plan: 'free',
    usage: { storage_bytes: 0, channels: 0 },
  });

  const again = await relayq(['accounts', 'create', 'acme']);
  expect(again).toEqual({ code: 1, stdout: '', stderr: 'relayq: account acme already exists\n' });
  const badPlan = await relayq(['accounts', 'set-plan', 'acme', 'gold']);
  expect(badPlan).toEqual({
    code: 1,
    stdout: '',
    stderr: 'relayq: plan must be one of free, paid\n',
  });

  expect(json(await relayq(['accounts', 'delete', 'acme']))).toEqual({ id: 'acme', deleted: true });
  const gone = await relayq(['accounts', 'show', 'acme']);
  expect(gone).toEqual({ code: 1, stdout: '', stderr: 'relayq: account acme does not exist\n' });
});

test('tokens: create scoped and expiring, list without secrets, revoke', async () => {
  json(await relayq(['accounts', 'create', 'beta']));
  const before = Date.now();
  const created = json(
    await relayq([
      'tokens',
      'create',
      'beta',
      '--name',
      'laptop',
      '--channels',
      'orders,alerts',
      '--expires-in',
      '7d',
    ]),
  );
  expect(created).toEqual({
    id: expect.stringMatching(/^[0-9a-f]{16}$/),
    token: expect.stringMatching(/^rq_/),
    name: 'laptop',
    channels: ['orders', 'alerts'],
    expires_ms: expect.any(Number),
  });
  expect(created.expires_ms).toBeGreaterThanOrEqual(before + 7 * 86_400_000);
  expect(created.expires_ms).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000);

  // The token works, within its scope.
  const send = (channel: string) =>
    fetch(`${app.baseUrl}/v1/relay/channels/${channel}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${created.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ body: 1 }),
    });
  expect((await send('orders')).status).toBe(200);
  expect((await send('billing')).status).toBe(403);

  const other = json(await relayq(['tokens', 'create', 'beta', '--expires-in', '90m']));
  expect(other).toMatchObject({ name: null, channels: null });
  expect(other.expires_ms - Date.now()).toBeGreaterThan(89 * 60_000);

  const listed = await relayq(['tokens', 'list', 'beta']);
  const list = json(listed);
  expect(list.tokens.map((t: { id: string }) => t.id)).toEqual([created.id, other.id]);
  expect(list.tokens[0]).toMatchObject({ name: 'laptop', channels: ['orders', 'alerts'] });
  expect(listed.stdout).not.toContain(created.token.slice(19, 62));
  expect(listed.stdout).not.toContain('hash');

  expect(json(await relayq(['tokens', 'revoke', 'beta', created.id]))).toEqual({
    id: created.id,
    revoked: true,
  });
  expect((await send('orders')).status).toBe(401);
  const twice = await relayq(['tokens', 'revoke', 'beta', created.id]);
  expect(twice).toEqual({
    code: 1,
    stdout: '',
    stderr: `relayq: token ${created.id} does not exist in account beta\n`,
  });
});

test('bad arguments are refused before any request, in plain words', async () => {
  const bad = await relayq(['tokens', 'create', 'beta', '--expires-in', '7w']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toBe(
    'relayq: --expires-in must be a positive number of seconds, or one with an s, m, h or d suffix (e.g. 7d), got "7w"\n',
  );
  const channels = await relayq(['tokens', 'create', 'beta', '--channels', ' , ']);
  expect(channels.stderr).toBe(
    'relayq: --channels must name at least one channel, e.g. --channels orders,alerts\n',
  );
  expect(channels.code).toBe(2);
  const missing = await relayq(['accounts', 'show']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("error: missing required argument 'account'");
  const noToken = await relayq(['accounts', 'show', 'acme'], { RELAY_ADMIN_TOKEN: '' });
  expect(noToken).toEqual({
    code: 2,
    stdout: '',
    stderr: 'relayq: no admin token: set RELAY_ADMIN_TOKEN or pass --admin-token <token>\n',
  });
});

test('connection problems and a wrong admin token are explained', async () => {
  const refused = await relayq(['accounts', 'show', 'acme'], { RELAY_URL: 'http://127.0.0.1:1' });
  expect(refused).toEqual({
    code: 1,
    stdout: '',
    stderr: 'relayq: cannot reach relayq at http://127.0.0.1:1: is it running?\n',
  });
  const wrong = await relayq(['accounts', 'show', 'acme'], {
    RELAY_ADMIN_TOKEN: 'wrong-admin-token-xxxxxxxx',
  });
  expect(wrong).toEqual({
    code: 1,
    stdout: '',
    stderr: 'relayq: invalid admin token: check RELAY_ADMIN_TOKEN or --admin-token\n',
  });
  const off = await startListeningApp(redis, { RELAY_ADMIN_TOKEN: '' });
  try {
    const res = await relayq(['accounts', 'show', 'acme'], { RELAY_URL: off.baseUrl });
    expect(res.stderr).toBe(
      `relayq: the operator API is off at ${off.baseUrl}: start relayq with RELAY_ADMIN_TOKEN set\n`,
    );
    expect(res.code).toBe(1);
  } finally {
    await off.close();
  }
});

test('--url and --admin-token override the environment', async () => {
  const res = await relayq(
    ['accounts', 'create', 'gamma', '--url', `${app.baseUrl}/`, '--admin-token', ADMIN_TOKEN],
    { RELAY_URL: 'http://127.0.0.1:1', RELAY_ADMIN_TOKEN: 'wrong-admin-token-xxxxxxxx' },
  );
  expect(json(res)).toEqual({ id: 'gamma', plan: 'free' });
});

test('--help works on every command', async () => {
  const runs = await Promise.all(
    [[], ['accounts', 'set-plan'], ['tokens', 'create'], ['tokens', 'revoke'], ['serve']].map(
      (args) => relayq([...args, '--help']),
    ),
  );
  for (const res of runs) {
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: relayq/);
  }
});

const hasScript = fs.existsSync('/usr/bin/script');
(hasScript ? test : test.skip)('on a terminal the output is readable lines', async () => {
  json(await relayq(['accounts', 'create', 'delta', '--plan', 'paid']));
  const command = `${process.execPath} ${MAIN} accounts show delta`;
  const res = await new Promise<string>((resolve, reject) =>
    execFile(
      '/usr/bin/script',
      ['-qec', command, '/dev/null'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          NODE_PATH,
          RELAY_URL: app.baseUrl,
          RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
        },
        timeout: 20_000,
      },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
  expect(res.replace(/\r/g, '').trim()).toBe(
    ['account   delta', 'plan      paid', 'storage   0 bytes', 'channels  0'].join('\n'),
  );
});
