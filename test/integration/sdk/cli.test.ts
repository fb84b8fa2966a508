/** The client commands of the relayq CLI, end to end: the built CLI against a real relay. */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RelayClient } from '@relayq/client';
import { eventually } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { CLI, closedPort, jsonLines, ROOT, runCli, type CliRun } from './support';

let dir: string;

function relayq(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return runCli(
    CLI,
    args,
    { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token, XDG_CONFIG_HOME: dir, ...options.env },
    options.input,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const lines = (text: string) => jsonLines(text) as any[];

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'relayq-cli-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const rq = useRelay({ listen: true, account: 'acme' });

test('send (argument, @file, stdin), pull, ack and channels, as JSON lines when piped', async () => {
  const one = await relayq([
    'send',
    'orders',
    '{"n":1}',
    '--metadata',
    'k=v',
    '--metadata',
    'x=y=z',
  ]);
  expect(one).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^\{"id":"[0-9a-f-]{36}"\}\n$/),
    stderr: '',
  });
  const file = path.join(dir, 'two.json');
  writeFileSync(file, '{"n":2}\n');
  const two = await relayq(['send', 'orders', `@${file}`]);
  const three = await relayq(['send', 'orders', '--content-type', 'text'], {
    input: 'plain words',
  });
  const four = await relayq(['send', 'orders', '-', '--dedup-id', 'd1'], { input: '[4]' });
  expect([two.code, three.code, four.code]).toEqual([0, 0, 0]);
  const ids = [one, two, three, four].map((r) => JSON.parse(r.stdout).id);

  const pulled = await relayq(['pull', 'orders', '--batch', '3', '--visibility', '5000']);
  expect(pulled.code).toBe(0);
  const document = JSON.parse(pulled.stdout);
  expect([document.channel, document.messageBacklogCount]).toEqual(['orders', 4]);
  const messages = document.messages;
  expect(messages.map((m: { id: string; body: unknown }) => [m.id, m.body])).toEqual([
    [ids[0], { n: 1 }],
    [ids[1], { n: 2 }],
    [ids[2], 'plain words'],
  ]);
  expect(messages[0].metadata).toEqual({ k: 'v', x: 'y=z' });
  expect(messages[2].contentType).toBe('text');

  const acked = await relayq(['ack', 'orders', messages[0].leaseId, messages[1].leaseId, 'stale']);
  expect(acked).toEqual({ code: 0, stdout: '{"ackedCount":2}\n', stderr: '' });

  const channels = await relayq(['channels']);
  expect(channels.code).toBe(0);
  expect(JSON.parse(channels.stdout).channels).toEqual([
    expect.objectContaining({ id: 'orders', queued: 1, delayed: 0, inFlight: 1 }),
  ]);

  const last = JSON.parse((await relayq(['pull', 'orders', '--ack'])).stdout);
  expect(last.messages.map((m: { body: unknown }) => m.body)).toEqual([[4]]);
  expect(last.ackedCount).toBe(1);
  const empty = await relayq(['pull', 'orders', '--wait', '100']);
  expect(empty.code).toBe(0);
  expect(JSON.parse(empty.stdout)).toEqual({
    channel: 'orders',
    messageBacklogCount: 1,
    messages: [],
  });
});

test('send --lines sends each line as a message; --delay holds them', async () => {
  const run = await relayq(['send', 'bulk', '--lines', '--delay', '60'], {
    input: '1\n"two"\n\n{"three":3}\n',
  });
  expect(run.code).toBe(0);
  expect(lines(run.stdout)).toHaveLength(3);
  const listed = JSON.parse((await relayq(['channels'])).stdout).channels;
  expect(listed).toEqual([expect.objectContaining({ id: 'bulk', queued: 0, delayed: 3 })]);
});

test('errors: plain words on stderr and a non-zero exit', async () => {
  expect(await relayq(['channels'], { env: { RELAY_TOKEN: '' } })).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'relayq: no relay token: pass --token, set RELAY_TOKEN, or run relayq login --token <token>\n',
  });
  expect(await relayq(['channels', '--token', 'rq_wrong'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'relayq: invalid token (HTTP 401)\n',
  });
  expect(await relayq(['send', 'orders', '{nope'])).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'relayq: the message is not valid JSON (use --content-type text to send plain text): {nope\n',
  });
  expect(await relayq(['pull', 'orders', '--batch', '500'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'relayq: batch_size must be at most 100 (HTTP 400)\n',
  });
  const port = await closedPort();
  const down = await relayq(['send', 'orders', '1', '--url', `http://127.0.0.1:${port}`]);
  expect(down).toEqual({
    code: 1,
    stdout: '',
    stderr: `relayq: cannot reach the relay at http://127.0.0.1:${port}: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${port})\n`,
  });
}, 60_000);

test('tail --ack piped into a file while send runs: every message appears once and is consumed', async () => {
  const out = path.join(dir, 'tail.jsonl');
  const fd = openSync(out, 'w');
  const tail = spawn(process.execPath, [CLI, 'tail', 'feed', 'other', '--ack'], {
    env: { PATH: process.env.PATH ?? '', RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token },
    stdio: ['ignore', fd, 'pipe'],
  });
  let stderr = '';
  tail.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => tail.on('close', resolve));
  closeSync(fd);

  const sent: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await relayq(['send', i % 2 ? 'other' : 'feed', JSON.stringify({ i })]);
    expect(r.code).toBe(0);
    sent.push(JSON.parse(r.stdout).id);
  }
  const bulk = await relayq(['send', 'feed', '--lines'], {
    input: Array.from({ length: 10 }, (_, i) => JSON.stringify({ i: 100 + i })).join('\n'),
  });
  sent.push(...lines(bulk.stdout).map((r) => r.id));

  const printed = () => lines(readFileSync(out, 'utf8'));
  await eventually(() => printed().length >= sent.length, 15_000, 100);
  tail.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(stderr).toBe('');
  const got = printed();
  expect(got.map((m) => m.id).sort()).toEqual([...sent].sort());
  expect(new Set(got.map((m) => m.channel))).toEqual(new Set(['feed', 'other']));
  const client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
  const { channels } = await client.channels();
  for (const c of channels) expect([c.id, c.queued, c.inFlight]).toEqual([c.id, 0, 0]);
}, 60_000);

test('tail without --ack prints each message once and leaves it in the channel', async () => {
  const { id } = await new RelayClient({ url: rq.app.baseUrl, token: rq.token }).send('peek', {
    body: 'look',
  });
  const tail = spawn(process.execPath, [CLI, 'tail', 'peek', '--visibility', '1000'], {
    env: { PATH: process.env.PATH ?? '', RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  tail.stdout!.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => tail.on('close', resolve));
  await eventually(() => stdout.includes('\n'), 10_000);
  await new Promise((r) => setTimeout(r, 1500)); // past one lease: it comes back, not printed again
  tail.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(lines(stdout).map((m) => [m.id, m.body])).toEqual([[id, 'look']]);
  const { channels } = await new RelayClient({ url: rq.app.baseUrl, token: rq.token }).channels();
  expect(channels.find((c) => c.id === 'peek')).toMatchObject({ queued: expect.any(Number) });
  expect(channels[0].queued + channels[0].inFlight).toBe(1);
}, 30_000);
