/**
 * `relayq forward` end to end: the built CLI against a real relay and a real
 * local HTTP server. What arrived while it was not running is delivered when
 * it starts, with the exact bytes and headers (the provider's signature still
 * checks); a failing target is retried; SIGINT loses nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { RelayClient } from '@relayq/client';
import { eventually, sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { createHook, deliver, hmacHex } from './hooks';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const SECRET = 'forward-test-secret';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local target that records every request and answers with answer() (default 200). */
async function startTarget(
  answer: (r: Received, n: number) => Promise<number> | number = () => 200,
) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(r);
      res.statusCode = await answer(r, received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    received,
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

// the root CLI with the client package it requires (its forward command)
beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}, 120_000);
const rq = useRelay({ listen: true, account: 'fwd' });
let client: RelayClient;
beforeEach(() => {
  client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
});

interface Forwarder {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startForward(channel: string, to: string, extra: string[] = []): Forwarder {
  const child = spawn(process.execPath, [CLI, 'forward', channel, '--to', to, '--json', ...extra], {
    env: { PATH: process.env.PATH ?? '', RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

const reports = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

async function backlog(channel: string): Promise<number> {
  const res = await rq.app.http.get(`/v1/relay/channels/${channel}`).set('Authorization', rq.auth);
  return res.body.result.queued + res.body.result.delayed + res.body.result.in_flight;
}

test('what arrived while offline is delivered on start: method, query, headers and exact bytes', async () => {
  const hook = await createHook(rq.app, rq.auth, 'orders', {
    verify: { scheme: 'github', secret: SECRET },
  });
  const json = '{ "action":"opened",\n  "number" : 1.0 }';
  const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x7f]);
  const sign = (b: string | Buffer) => `sha256=${hmacHex(SECRET, b)}`;
  const sent = [
    await deliver(rq.app, `${hook.path}?a=1&b=%20`, json, {
      'Content-Type': 'application/json',
      'X-Hub-Signature-256': sign(json),
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': 'd-1',
    }),
    await deliver(rq.app, hook.path, binary, { 'X-Hub-Signature-256': sign(binary) }, 'PUT'),
    await deliver(rq.app, hook.path, '', { 'X-Hub-Signature-256': sign('') }),
  ].map((r) => r.body.result.id as string);
  const plain = await client.send('orders', { body: { plain: true } });
  const text = await client.send('orders', { body: 'hello', contentType: 'text' });

  const target = await startTarget();
  const fwd = startForward('orders', `${target.url}/webhooks?src=relay`);
  try {
    await eventually(() => target.received.length >= 5, 15_000, 50);
    const [r1, r2, r3, r4, r5] = target.received;
    expect([r1.method, r1.url]).toEqual(['POST', '/webhooks?src=relay&a=1&b=%20']);
    expect(r1.body.toString('utf8')).toBe(json);
    expect(r1.headers['x-hub-signature-256']).toBe(`sha256=${hmacHex(SECRET, r1.body)}`);
    expect(r1.headers['content-type']).toBe('application/json');
    expect(r1.headers['x-github-event']).toBe('pull_request');
    expect(r1.headers['x-github-delivery']).toBe('d-1');
    expect(r1.headers['x-relayq-message-id']).toBe(sent[0]);
    expect(r1.headers['x-relayq-attempts']).toBe('1');
    expect(r1.headers['content-length']).toBe(String(Buffer.byteLength(json)));

    expect([r2.method, r2.url]).toEqual(['PUT', '/webhooks?src=relay']);
    expect(r2.body.equals(binary)).toBe(true);
    expect(r2.headers['x-hub-signature-256']).toBe(sign(binary));
    expect([r3.method, r3.body.length, r3.headers['x-relayq-message-id']]).toEqual([
      'POST',
      0,
      sent[2],
    ]);

    expect([r4.method, r4.headers['content-type'], r4.body.toString()]).toEqual([
      'POST',
      'application/json',
      '{"plain":true}',
    ]);
    expect(r4.headers['x-relayq-message-id']).toBe(plain.id);
    expect([r5.headers['content-type'], r5.body.toString()]).toEqual([
      'text/plain; charset=utf-8',
      'hello',
    ]);
    expect(r5.headers['x-relayq-message-id']).toBe(text.id);

    await eventually(async () => (await backlog('orders')) === 0, 10_000, 50);
    fwd.child.kill('SIGINT');
    expect(await fwd.exited).toBe(0);
    const lines = reports(fwd.stdout());
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({
      channel: 'orders',
      messageId: sent[0],
      method: 'POST',
      status: 200,
      outcome: 'acked',
      attempts: 1,
      url: `${target.url}/webhooks?src=relay&a=1&b=%20`,
    });
    expect(typeof lines[0].ms).toBe('number');
    expect(fwd.stderr()).toBe('');
  } finally {
    fwd.child.kill('SIGKILL');
    await target.close();
  }
}, 60_000);

test('a webhook that arrives while forward runs is delivered at once (new_message wakes it)', async () => {
  const hook = await createHook(rq.app, rq.auth, 'live');
  const target = await startTarget();
  const fwd = startForward('live', target.url);
  try {
    // a first delivery shows the forwarder is up and has caught up
    await deliver(rq.app, hook.path, 'warm-up');
    await eventually(() => target.received.length === 1, 20_000, 20);
    const sent = await deliver(rq.app, `${hook.path}?x=1`, 'ping', { 'X-Event': 'ping' });
    // the fallback pull runs every 10 s: within 5 s it was woken by its subscription
    await eventually(() => target.received.length === 2, 5_000, 20);
    const r = target.received[1];
    expect([r.url, r.body.toString(), r.headers['x-event']]).toEqual(['/?x=1', 'ping', 'ping']);
    expect(r.headers['x-relayq-message-id']).toBe(sent.body.result.id);
  } finally {
    fwd.child.kill('SIGINT');
    expect(await fwd.exited).toBe(0);
    await target.close();
  }
}, 60_000);

test('a 500 from the target is retried after a delay, and a later 2xx acks', async () => {
  const { id } = await client.send('jobs', { body: { n: 1 } });
  const target = await startTarget((_r, n) => (n === 1 ? 500 : 204));
  const fwd = startForward('jobs', target.url, ['--retry-schedule', '0,1']);
  try {
    await eventually(() => target.received.length >= 2, 15_000, 50);
    expect(target.received.map((r) => r.headers['x-relayq-attempts'])).toEqual(['1', '2']);
    await eventually(async () => (await backlog('jobs')) === 0, 10_000, 50);
    fwd.child.kill('SIGTERM');
    expect(await fwd.exited).toBe(0);
    expect(
      reports(fwd.stdout()).map((r) => [r.messageId, r.status, r.outcome, r.retryInSeconds]),
    ).toEqual([
      [id, 500, 'retry', 1],
      [id, 204, 'acked', null],
    ]);
  } finally {
    fwd.child.kill('SIGKILL');
    await target.close();
  }
}, 60_000);

test('a refused connection is a failed delivery: reported, and the message handed back', async () => {
  const { id } = await client.send('jobs', { body: 1 });
  const gone = await startTarget();
  const url = gone.url;
  await gone.close();
  const fwd = startForward('jobs', url);
  try {
    await eventually(() => reports(fwd.stdout()).length >= 1, 15_000, 50);
    expect(reports(fwd.stdout())[0]).toMatchObject({
      messageId: id,
      status: null,
      error: 'ECONNREFUSED',
      outcome: 'retry',
    });
    expect(await backlog('jobs')).toBe(1);
  } finally {
    fwd.child.kill('SIGINT');
    expect(await fwd.exited).toBe(0);
  }
}, 60_000);

test('forward retries on its own schedule, then hands back: the channel max attempts count hand-backs, then dead-letter', async () => {
  await rq.app.http
    .put('/v1/relay/channels/jobs')
    .set('Authorization', rq.auth)
    .send({ max_attempts: 2, dead_letter_channel: 'jobs-dlq' });
  const { id } = await client.send('jobs', { body: 1 });
  const target = await startTarget(() => 503);
  const fwd = startForward('jobs', target.url, ['--retry-schedule', '0,0']);
  try {
    await eventually(
      async () =>
        (await client.channels()).channels.some((c) => c.id === 'jobs-dlq' && c.queued === 1),
      15_000,
      100,
    );
    // two attempts per lease (its own schedule), two leases (the channel's max_attempts)
    expect(target.received).toHaveLength(4);
    expect(reports(fwd.stdout()).map((r) => r.outcome)).toEqual([
      'retry',
      'handed_back',
      'retry',
      'handed_back',
    ]);
    expect(await backlog('jobs')).toBe(0);
    const dead = await client.pull('jobs-dlq');
    expect(dead.messages.map((m) => m.id)).toEqual([id]);
  } finally {
    fwd.child.kill('SIGINT');
    await fwd.exited;
    await target.close();
  }
}, 60_000);

test('a target down for longer than three attempts loses nothing, and --concurrency 1 keeps the order', async () => {
  const ids: string[] = [];
  for (let i = 1; i <= 3; i++) ids.push((await client.send('down', { body: { i } })).id);
  // refused (500) for the first 5 requests: more than the channel's 3 deliveries
  const target = await startTarget((_r, n) => (n <= 5 ? 500 : 200));
  const fwd = startForward('down', target.url, [
    '--retry-schedule',
    '0,0,0,1,0,0,0,0',
    '--concurrency',
    '1',
  ]);
  try {
    await eventually(() => target.received.length === 8, 20_000, 50);
    expect(target.received.map((r) => JSON.parse(r.body.toString()).i)).toEqual([
      1, 1, 1, 1, 1, 1, 2, 3,
    ]);
    expect(target.received.map((r) => r.headers['x-relayq-attempts'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '1',
      '1',
    ]);
    await eventually(async () => (await backlog('down')) === 0, 10_000, 50);
    const lines = reports(fwd.stdout());
    // every "retry" line was followed by that retry
    expect(lines.filter((r) => r.outcome === 'retry')).toHaveLength(5);
    expect(lines.filter((r) => r.outcome === 'acked').map((r) => r.messageId)).toEqual(ids);
  } finally {
    fwd.child.kill('SIGINT');
    await fwd.exited;
    await target.close();
  }
}, 60_000);

test('SIGINT finishes the delivery in flight and loses nothing; a second run delivers the rest', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await client.send('slow', { body: { i } })).id);
  let release: () => void = () => undefined;
  const target = await startTarget(async (_r, n) => {
    if (n === 1) await new Promise<void>((resolve) => (release = resolve));
    return 200;
  });
  const first = startForward('slow', target.url);
  await eventually(() => target.received.length === 1, 15_000, 20);
  first.child.kill('SIGINT');
  await sleep(300);
  release(); // the target answers only after the signal
  expect(await first.exited).toBe(0);
  const firstRun = reports(first.stdout());
  expect(firstRun.map((r) => [r.messageId, r.outcome])).toEqual([[ids[0], 'acked']]);
  expect(await backlog('slow')).toBe(4);

  const second = startForward('slow', target.url);
  try {
    await eventually(async () => (await backlog('slow')) === 0, 15_000, 50);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const delivered = target.received.map((r) => r.headers['x-relayq-message-id']);
    expect(delivered).toEqual(ids);
  } finally {
    second.child.kill('SIGKILL');
    await target.close();
  }
}, 60_000);
