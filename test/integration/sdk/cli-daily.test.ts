/**
 * The CLI for daily use: channel management, profiles from `relayq login`,
 * whoami, account tokens, --json on every command and the exit codes, through
 * the client package's own bin and the server package's relayq alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RelayClient } from '@relayq/client';
import { accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { CLI, CLIENT_CLI, ROOT, runCli, type CliRun } from './support';

let token: string;
let owner: string;
let home: string;

/** The client package's bin, with no RELAY_* in the environment unless given. */
const client = (args: string[], env: Record<string, string> = {}, input = ''): Promise<CliRun> =>
  runCli(CLIENT_CLI, args, { XDG_CONFIG_HOME: home, ...env }, input);
const json = (run: CliRun) => {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
};

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}, 120_000);
const rq = useRelay({ listen: true });
beforeEach(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'relayq-home-'));
  ({ token } = await accountWithToken(rq.app, 'acme', { channels: ['orders', 'orders-dlq'] }));
  owner = (await rq.app.relay.store.accounts.get('acme'))
    ? (
        await rq.app.http
          .post('/v1/admin/accounts/acme/tokens')
          .set('Authorization', 'Bearer test-admin-token-0123456789')
          .send({ role: 'owner', name: 'me' })
      ).body.result.token
    : '';
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

test('login saves a profile (mode 0600) that later commands use; --profile picks another', async () => {
  const login = json(await client(['login', '--url', rq.app.baseUrl, '--json'], {}, `${token}\n`));
  expect(login).toMatchObject({
    profile: 'default',
    url: rq.app.baseUrl,
    account: 'acme',
    role: 'relay',
  });
  const file = path.join(home, 'relayq', 'config.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.token).toBe(token);

  const sent = json(await client(['send', 'orders', '{"n":1}', '--json']));
  expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);

  json(await client(['login', '--url', rq.app.baseUrl, '--token', owner, '--profile', 'admin']));
  const profiles = json(await client(['profiles', '--json']));
  expect(profiles.current).toBe('admin');
  expect(profiles.profiles.map((p: { name: string }) => p.name).sort()).toEqual([
    'admin',
    'default',
  ]);
  expect(JSON.stringify(profiles)).not.toContain(token);

  const me = json(await client(['whoami', '--profile', 'default', '--json']));
  expect(me).toMatchObject({
    account: 'acme',
    role: 'relay',
    channels: ['orders', 'orders-dlq'],
    expiresMs: null,
    plan: 'free',
    source: 'profile default',
  });
  expect(JSON.stringify(me)).not.toContain(token.slice(20));
  // flags, then environment, then the profile
  const fromEnv = json(
    await client(['whoami', '--json'], { RELAY_TOKEN: token, RELAY_URL: rq.app.baseUrl }),
  );
  expect([fromEnv.role, fromEnv.source]).toEqual(['relay', 'environment']);
  expect(json(await client(['whoami', '--json'])).role).toBe('owner');

  const unknown = await client(['whoami', '--profile', 'nope']);
  expect(unknown).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'relayq-client: no profile named nope (profiles: default, admin); create it with relayq-client login --profile nope\n',
  });
  expect((await client(['logout', '--profile', 'admin'])).code).toBe(0);
  expect(json(await client(['profiles', '--json'])).current).toBe('default');
});

test('login refuses a token the relay does not accept, and saves nothing', async () => {
  const run = await client(['login', '--url', rq.app.baseUrl, '--token', 'rq_wrong']);
  expect(run).toEqual({ code: 1, stdout: '', stderr: 'relayq-client: invalid token (HTTP 401)\n' });
  expect(json(await client(['profiles', '--json'])).profiles).toEqual([]);
});

test('channels show, configure, purge, redrive and delete, each with --json', async () => {
  const env = { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: token };
  const sdk = new RelayClient({ url: rq.app.baseUrl, token });
  const configured = json(
    await client(
      [
        'channels',
        'configure',
        'orders',
        '--dead-letter',
        'orders-dlq',
        '--max-attempts',
        '1',
        '--json',
      ],
      env,
    ),
  );
  // the settings given, and every other one as in effect (its default)
  expect(configured.config).toEqual({
    deadLetterChannel: 'orders-dlq',
    maxAttempts: 1,
    dedupWindowSeconds: 300,
    paused: false,
    visibilityTimeoutMs: 30000,
    delaySeconds: 0,
    retentionSeconds: 3 * 86400,
    receiveWaitSeconds: 0,
    groupOrder: 'strict',
    historySeconds: 0,
    fifo: false,
  });
  await sdk.sendBatch('orders', [{ body: 1 }, { body: 2 }, { body: 3 }]);
  const pulled = await sdk.pull('orders', { batchSize: 3, visibilityTimeoutMs: 60_000 });
  await sdk.ack('orders', [], {
    retries: pulled.messages.map((m) => ({ leaseId: m.leaseId })),
  });
  expect(json(await client(['channels', 'show', 'orders-dlq', '--json'], env)).queued).toBe(3);

  const redriven = json(await client(['channels', 'redrive', 'orders-dlq', '--json'], env));
  expect(redriven).toEqual({ movedCount: 3 });
  expect(json(await client(['channels', 'purge', 'orders', '--json'], env))).toEqual({
    purgedCount: 3,
  });
  expect(json(await client(['channels', 'delete', 'orders', '--json'], env))).toEqual({
    deletedCount: 0,
  });
  const listed = json(await client(['channels', 'list', '--json'], env));
  expect(listed.channels.map((c: { id: string }) => c.id)).toEqual(['orders-dlq']);
});

test('account tokens: create, list and revoke with an owner token', async () => {
  const env = { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: owner };
  const created = json(
    await client(
      ['account', 'tokens', 'create', '--name', 'ci', '--channels', 'orders', '--json'],
      env,
    ),
  );
  expect(created).toMatchObject({ name: 'ci', channels: ['orders'], expiresMs: null });
  expect(created.token).toMatch(/^rq_/);
  const listed = json(await client(['account', 'tokens', '--json'], env));
  expect(listed.tokens.map((t: { id: string }) => t.id)).toContain(created.id);
  expect(JSON.stringify(listed)).not.toContain(created.token);
  expect(json(await client(['account', 'tokens', 'revoke', created.id, '--json'], env))).toEqual({
    id: created.id,
    revoked: true,
  });
  const refused = await client(['account', 'show'], {
    RELAY_URL: rq.app.baseUrl,
    RELAY_TOKEN: token,
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^relayq-client: .*\(HTTP 403\)\n$/);
});

test('exit code 2 for usage errors, the same in both bins', async () => {
  const env = { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: token };
  for (const [cli, name] of [
    [CLI, 'relayq'],
    [CLIENT_CLI, 'relayq-client'],
  ]) {
    const unknown = await runCli(cli, ['frobnicate'], env);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toMatch(/^error: unknown command 'frobnicate'/);
    const flag = await runCli(cli, ['channels', 'list', '--bogus'], env);
    expect([flag.code, flag.stdout]).toEqual([2, '']);
    expect(flag.stderr).toMatch(/^error: unknown option '--bogus'/);
    const badJson = await runCli(
      cli,
      ['channels', 'configure', 'orders', '--set', 'paused=yes'],
      env,
    );
    expect(badJson).toEqual({
      code: 2,
      stdout: '',
      stderr: `${name}: --set paused must be JSON (quote strings: '"text"'), not yes\n`,
    });
    const help = await runCli(cli, ['--help'], env);
    expect(help.code).toBe(0);
  }
});

test('errors and hints name the command the user ran', async () => {
  for (const [cli, name] of [
    [CLI, 'relayq'],
    [CLIENT_CLI, 'relayq-client'],
  ]) {
    const env = { XDG_CONFIG_HOME: home, RELAY_URL: rq.app.baseUrl };
    expect(await runCli(cli, ['channels'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: `${name}: no relay token: pass --token, set RELAY_TOKEN, or run ${name} login --token <token>\n`,
    });
    expect(await runCli(cli, ['whoami', '--profile', 'work'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: `${name}: no profile named work; create it with ${name} login --profile work\n`,
    });
    const help = await runCli(cli, ['whoami', '--help'], env);
    expect(help.stdout).toContain(`use this profile of ${name} login`);
  }
});
