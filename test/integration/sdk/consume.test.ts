import { RelayClient, type Consumer, type PulledMessage } from '@relayq/client';
import { accountWithToken, eventually, sleep, startApp } from '../../helpers/app';
import { startRedis, type TestRedis } from '../../helpers/redis';
import { restartableRelay, type RestartableRelay } from './support';

let redis: TestRedis;
let relay: RestartableRelay;
let token: string;
let client: RelayClient;
let consumer: Consumer | null = null;

const fast = {
  reconnect: { baseMs: 100, maxMs: 400 },
  backoff: { baseMs: 100, maxMs: 400 },
};

beforeAll(async () => {
  redis = await startRedis();
  relay = await restartableRelay(redis);
});
afterAll(async () => {
  await relay.stop();
  await redis.stop();
});
beforeEach(async () => {
  await redis.flush();
  ({ token } = await accountWithToken(relay.app(), 'acme'));
  client = new RelayClient({
    url: relay.baseUrl,
    token,
    retry: { attempts: 3, baseMs: 50, maxMs: 200 },
  });
});
afterEach(async () => {
  await consumer?.stop({ timeoutMs: 2000 });
  consumer = null;
});

async function counts(channel: string) {
  const { channels } = await client.channels();
  const c = channels.find((x) => x.id === channel);
  return c ? { queued: c.queued, delayed: c.delayed, inFlight: c.inFlight } : null;
}

test('pulls on new_message: handled long before the fallback timer would fire', async () => {
  const events: string[] = [];
  const handled: PulledMessage[] = [];
  consumer = client.consume('orders', (m) => void handled.push(m), {
    fallbackIntervalMs: 60_000,
  });
  consumer.on('connected', () => events.push('connected'));
  await eventually(() => events.includes('connected'));
  const { id } = await client.send('orders', { body: { n: 1 }, metadata: { k: 'v' } });
  await eventually(() => handled.length === 1, 3000);
  expect(handled[0]).toEqual({
    id,
    body: { n: 1 },
    contentType: 'json',
    metadata: { k: 'v' },
    attempts: 1,
    timestampMs: expect.any(Number),
    leaseId: expect.any(String),
  });
  await eventually(async () => (await counts('orders'))?.inFlight === 0);
  expect(await counts('orders')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
});

test('catches up on connect with what was sent before it started, on several channels', async () => {
  const sent = [
    (await client.send('a', { body: 1 })).id,
    (await client.send('b', { body: 2 })).id,
    (await client.send('c', { body: 3 })).id,
  ];
  const seen: [string, string][] = [];
  consumer = client.consume(['a', 'b'], (m, { channel }) => void seen.push([channel, m.id]));
  await eventually(() => seen.length === 2);
  expect(seen.sort()).toEqual([
    ['a', sent[0]],
    ['b', sent[1]],
  ]);
});

test('every message handled once while the relay goes away and comes back; sends during the outage go through another pod', async () => {
  const handled: string[] = [];
  const events: string[] = [];
  consumer = client.consume(
    ['a', 'b'],
    async (m) => {
      await sleep(5);
      handled.push(m.id);
    },
    { concurrency: 3, fallbackIntervalMs: 1000, ...fast },
  );
  consumer.on('connected', () => events.push('connected'));
  consumer.on('disconnected', () => events.push('disconnected'));
  await eventually(() => events.includes('connected'));

  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push((await client.send(i % 2 ? 'a' : 'b', { body: i })).id);
  // the first handlings can take a while on a loaded machine (as in outage.test.ts)
  await eventually(() => handled.length >= 5, 15_000);

  await relay.stop();
  // The consumer's pod is gone; producers keep sending through another one.
  const other = await startApp(redis);
  const otherAuth = (await accountWithToken(other, 'acme')).auth;
  for (let i = 0; i < 20; i++) {
    const res = await other.http
      .post(`/v1/relay/channels/${i % 2 ? 'a' : 'b'}/messages`)
      .set('Authorization', otherAuth)
      .send({ body: 100 + i });
    expect(res.status).toBe(200);
    ids.push(res.body.result.id);
  }
  await sleep(500);
  await relay.start();
  await other.close();

  await eventually(() => handled.length >= ids.length, 20_000);
  await eventually(() => events.filter((e) => e === 'connected').length >= 2, 15_000);
  expect(events.slice(0, 3)).toEqual(['connected', 'disconnected', 'connected']);
  for (let i = 0; i < 5; i++) ids.push((await client.send('a', { body: 200 + i })).id);
  await eventually(() => handled.length >= ids.length, 10_000);
  await consumer.stop();
  consumer = null;
  expect([...handled].sort()).toEqual([...ids].sort());
  expect(await counts('a')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
  expect(await counts('b')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
}, 45_000);

test('an ack lost while the relay is down past the lease: the message is not handled twice', async () => {
  const handled: number[] = [];
  let stopped: Promise<void> | null = null;
  consumer = client.consume(
    'fragile',
    (m) => {
      handled.push(m.attempts);
      // The relay goes away before this success can be acked.
      if (!stopped) stopped = relay.stop();
    },
    { visibilityTimeoutMs: 1000, fallbackIntervalMs: 500, ...fast },
  );
  await client.send('fragile', { body: 'once' });
  await eventually(() => stopped !== null);
  await stopped;
  await sleep(2000); // the lease ends while nobody can ack it
  await relay.start();
  await eventually(async () => {
    const c = await counts('fragile');
    return c !== null && c.queued + c.delayed + c.inFlight === 0;
  }, 10_000);
  expect(handled).toEqual([1]);
}, 30_000);

test('stop() with the relay unreachable gives up on the last acks after timeout_ms; the message comes back', async () => {
  let stopped: Promise<void> | null = null;
  consumer = client.consume(
    'unlucky',
    () => {
      if (!stopped) stopped = relay.stop();
    },
    { visibilityTimeoutMs: 1000, ...fast },
  );
  await client.send('unlucky', { body: 1 });
  await eventually(() => stopped !== null);
  await stopped;
  const began = Date.now();
  await consumer.stop({ timeoutMs: 1000 });
  consumer = null;
  expect(Date.now() - began).toBeLessThan(5000);
  await relay.start();
  await sleep(1200);
  const again = await client.pull('unlucky');
  expect(again.messages.map((m) => [m.body, m.attempts])).toEqual([[1, 2]]);
}, 30_000);

test('a failing handler: the message comes back with a retry delay and dead-letters after 3 deliveries', async () => {
  const put = await fetch(`${relay.baseUrl}/v1/relay/channels/jobs`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ dead_letter_channel: 'jobs-dlq' }),
  });
  expect(put.status).toBe(200);
  const attempts: number[] = [];
  const errors: string[] = [];
  consumer = client.consume(
    'jobs',
    (m) => {
      attempts.push(m.attempts);
      throw new Error(`cannot handle ${String(m.body)}`);
    },
    { retryDelaySeconds: 0, fallbackIntervalMs: 500 },
  );
  consumer.on('error', (err: Error, ctx: { during: string }) =>
    errors.push(`${ctx.during}: ${err.message}`),
  );
  const { id } = await client.send('jobs', { body: 'job-1' });
  await eventually(async () => (await counts('jobs-dlq'))?.queued === 1, 10_000);
  await sleep(300);
  expect(attempts).toEqual([1, 2, 3]);
  expect(errors).toEqual(Array(3).fill('handler: cannot handle job-1'));
  expect(await counts('jobs')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
  const dead = await client.pull('jobs-dlq');
  expect(dead.messages.map((m) => m.body)).toEqual(['job-1']);
  expect(dead.messages[0].id).toBe(id);
});

test('a failing handler without retryDelaySeconds: the lease lapses and the message comes back', async () => {
  const seen: number[] = [];
  consumer = client.consume(
    'lapse',
    (m) => {
      seen.push(m.attempts);
      if (m.attempts === 1) throw new Error('not yet');
    },
    { visibilityTimeoutMs: 1000, fallbackIntervalMs: 500 },
  );
  const started = Date.now();
  await client.send('lapse', { body: 1 });
  await eventually(() => seen.length === 2, 5000);
  expect(seen).toEqual([1, 2]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  await eventually(async () => (await counts('lapse'))?.inFlight === 0);
  expect(await counts('lapse')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
});

test('a handler running past its visibility timeout keeps its lease and is not delivered twice', async () => {
  const seen: number[] = [];
  const second = new RelayClient({ url: relay.baseUrl, token });
  consumer = client.consume(
    'slow',
    async (m) => {
      seen.push(m.attempts);
      await sleep(6500);
    },
    // Extended at half the timeout (2 s), which leaves the extend call 2 s on a loaded machine.
    { visibilityTimeoutMs: 4000 },
  );
  await client.send('slow', { body: 1 });
  await eventually(() => seen.length === 1);
  // Another consumer trying meanwhile gets nothing: the lease is being extended.
  for (let i = 0; i < 6; i++) {
    await sleep(1000);
    expect((await second.pull('slow')).messages).toEqual([]);
  }
  await eventually(async () => (await counts('slow'))?.inFlight === 0, 8000);
  expect(seen).toEqual([1]);
  expect(await counts('slow')).toEqual({ queued: 0, delayed: 0, inFlight: 0 });
});

test('stop() loses nothing: all handled messages are acked, nothing unhandled is', async () => {
  const handled = new Set<string>();
  const started = new Set<string>();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const batch = Array.from({ length: 20 }, (_, j) => ({ body: i * 20 + j }));
    ids.push(...(await client.sendBatch('work', batch)).ids);
  }
  consumer = client.consume(
    'work',
    async (m) => {
      started.add(m.id);
      await sleep(20 + Math.floor(Math.random() * 150));
      handled.add(m.id);
    },
    { concurrency: 5 },
  );
  await eventually(() => handled.size >= 20);
  await consumer.stop();
  consumer = null;
  expect([...started].sort()).toEqual([...handled].sort());
  expect(handled.size).toBeLessThan(80);
  // Everything not handled is available at once (no lease held), everything handled is gone.
  const rest: string[] = [];
  for (;;) {
    const pulled = await client.pull('work', { batchSize: 100 });
    if (pulled.messages.length === 0) break;
    rest.push(...pulled.messages.map((m) => m.id));
  }
  expect(rest.filter((id) => handled.has(id))).toEqual([]);
  expect([...rest, ...handled].sort()).toEqual([...ids].sort());
});
