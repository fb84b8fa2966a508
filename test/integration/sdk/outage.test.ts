/**
 * Redis goes away and comes back (with its data: it saves on shutdown): the
 * relay answers 503 meanwhile (nothing done), and the SDK retries every call
 * through it within its retry budget; a consumer catches up with what was
 * sent during the outage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RelayClient, RelayError, type AckResult, type PullResult } from '@relayq/client';
import { accountWithToken, eventually, sleep } from '../../helpers/app';
import { startSingleRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';

const UNAVAILABLE = 'the queue store is unavailable; the request had no effect and may be retried';

let dir = '';
const rq = useRelay({
  listen: true,
  flush: false,
  redis: () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'relayq-sdk-'));
    return startSingleRedis(['--dir', dir, '--save', '3600 1']);
  },
});
let token: string;
let calls: number;

const counting: typeof fetch = (input, init) => {
  calls++;
  return fetch(input, init);
};

function client(): RelayClient {
  return new RelayClient({
    url: rq.app.baseUrl,
    token,
    fetch: counting,
    retry: { attempts: 40, baseMs: 100, maxMs: 300 },
  });
}

/** Stops Redis, runs `during`, brings Redis back after `outageMs`. */
async function outage(outageMs: number, during: () => Promise<void> = async () => undefined) {
  await rq.redis.pause();
  const back = sleep(outageMs).then(() => rq.redis.resume());
  await during();
  await back;
  await eventually(async () => (await fetch(`${rq.app.baseUrl}/readyz`)).status === 200, 10_000);
}

beforeAll(async () => {
  ({ token } = await accountWithToken(rq.app, 'acme'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  calls = 0;
});

test('a pull is retried through a 503 until Redis is back', async () => {
  const c = client();
  const { id } = await c.send('orders', { body: 'kept' });
  let pulled!: Promise<PullResult>;
  await outage(1200, async () => {
    pulled = c.pull('orders', { batchSize: 1 });
    await sleep(300);
  });
  const result = await pulled;
  expect(result.messages.map((m) => m.id)).toEqual([id]);
  expect(calls).toBeGreaterThan(2);
  expect(await c.ack('orders', [result.messages[0].leaseId])).toEqual({ ackedCount: 1 });
});

test('a send without dedupId is retried through a 503 (nothing was stored) and stored once', async () => {
  const c = client();
  let sent!: Promise<{ id: string }>;
  await outage(800, async () => {
    sent = c.send('plain', { body: 'once' });
    await sleep(300);
  });
  const { id } = await sent;
  expect(calls).toBeGreaterThan(1);
  const pulled = await c.pull('plain', { batchSize: 10 });
  expect(pulled.messages.map((m) => [m.id, m.body])).toEqual([[id, 'once']]);
});

test('when the retry budget is spent, the 503 is thrown as a RelayError', async () => {
  const c = new RelayClient({
    url: rq.app.baseUrl,
    token,
    fetch: counting,
    retry: { attempts: 2, baseMs: 10, maxMs: 20 },
  });
  await outage(500, async () => {
    const err = await c.send('orders', { body: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect([(err as RelayError).status, (err as RelayError).code]).toEqual([503, 503]);
    expect((err as RelayError).message).toBe(UNAVAILABLE);
  });
  expect(calls).toBe(2);
});

test('a send with a dedup_id and an ack are retried and take effect once', async () => {
  const c = client();
  await c.send('dedup', { body: 'first' });
  const first = await c.pull('dedup');
  let sent!: Promise<{ id: string }>;
  let acked!: Promise<AckResult>;
  await outage(1200, async () => {
    sent = c.send('dedup', { body: 'second', dedupId: 'd-1' });
    acked = c.ack('dedup', [first.messages[0].leaseId]);
    await sleep(300);
  });
  const { id } = await sent;
  expect(await acked).toEqual({ ackedCount: 1 });
  expect(calls).toBeGreaterThan(4);
  const rest = await c.pull('dedup', { batchSize: 10 });
  expect(rest.messages.map((m) => [m.id, m.body])).toEqual([[id, 'second']]);
});

test('consume handles every message once across a Redis outage, including messages sent during it', async () => {
  const c = client();
  const handled: string[] = [];
  const consumer = c.consume(['a', 'b'], (m) => void handled.push(m.id), {
    concurrency: 4,
    // A pull that Redis ran as it shut down, its answer lost with the connection (the 503
    // says the outcome is unknown), holds its leases until their visibility ends: 4 s, not
    // the default 30 s, so those messages come back within the wait below.
    visibilityTimeoutMs: 4000,
    fallbackIntervalMs: 1000,
    reconnect: { baseMs: 100, maxMs: 500 },
    backoff: { baseMs: 100, maxMs: 500 },
  });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await c.send(i % 2 ? 'a' : 'b', { body: i })).id);
  await eventually(() => handled.length >= 5, 15_000);
  await outage(1500, async () => {
    // Producers with a dedup_id keep trying through the outage.
    const during = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        c.send(i % 2 ? 'a' : 'b', { body: 100 + i, dedupId: `during-${i}` }),
      ),
    );
    ids.push(...during.map((r) => r.id));
  });
  for (let i = 0; i < 10; i++) ids.push((await c.send(i % 2 ? 'a' : 'b', { body: 200 + i })).id);
  await eventually(() => handled.length >= ids.length, 20_000);
  await consumer.stop();
  expect([...handled].sort()).toEqual([...ids].sort());
  const left = await c.channels();
  const counts = left.channels
    .filter((ch) => ch.id === 'a' || ch.id === 'b')
    .map((ch) => [ch.id, ch.queued, ch.delayed, ch.inFlight]);
  expect(counts.sort()).toEqual([
    ['a', 0, 0, 0],
    ['b', 0, 0, 0],
  ]);
}, 45_000);
