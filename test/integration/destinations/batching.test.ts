/**
 * Outcomes recorded in batches (src/destinations/outcomes.ts, lua/destination_result.lua): one
 * call records many outcomes in the order given, each with its own result (a stale lease among
 * them changes nothing of the others); a busy destination delivers every message once (but
 * after a failure), with a complete attempts log and history, in fewer calls than attempts.
 */
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { eventually, startApp } from '../../helpers/app';
import { startReceiver, type Receiver } from './receiver';

const pods = useTwoPods((redis) => startApp(redis, { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true' }));

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
  for (const pod of [pods.a, pods.b]) {
    Object.assign(pod.relay.deliveries!.options, { pollMs: 200, allowPrivate: true });
  }
});
afterEach(async () => {
  await receiver.close();
});

const dpath = (channel: string, rest = '') => `/v1/relay/channels/${channel}/destinations${rest}`;
const SETTINGS = { logMax: 1000, cooldownMs: 30_000, disableAfterMs: 3600_000 };

async function setup(prefix: string, body: Record<string, unknown>) {
  const acc = await accountOnPods(pods, prefix);
  const res = await pods.a.http
    .post(dpath('orders'))
    .set('Authorization', acc.auth)
    .send({ url: receiver.url, ...body });
  expect(res.status).toBe(200);
  return { ...acc, dest: res.body.result as { id: string } };
}

const outcome = (leaseId: string, ok: boolean, attempt = 1) => ({
  leaseId,
  outcome: ok ? ('ok' as const) : ('fail' as const),
  retryAfterMs: null,
  failure: ok ? '' : 'HTTP 500',
  entry: JSON.stringify({
    message_id: leaseId,
    attempt,
    started_at: Date.now(),
    duration_ms: 3,
    status: ok ? 200 : 500,
    error: null,
    response_excerpt: '',
  }),
  attempt,
  durationMs: 3,
  status: ok ? 200 : 500,
});

test('one call records many outcomes in order, each with its own result, then takes what the freed slots allow', async () => {
  for (const pod of [pods.a, pods.b]) await pod.relay.deliveries!.stop();
  try {
    const { ca, id, auth, dest } = await setup('bo', {
      parallelism: 3,
      retry: { schedule_seconds: [0, 60], max_attempts: 5 },
    });
    await ca.batch('orders', { messages: [1, 2, 3, 4].map((n) => ({ body: { n } })) });
    const destinations = pods.a.relay.relay.destinations;
    const taken = await destinations.take(id, 'orders', dest.id, 10);
    expect(taken.messages).toHaveLength(3);
    const [m1, m2, m3] = taken.messages.map((m) => m.leaseId);
    // m3's lease is gone by the time its outcome comes (as when it lapsed and was taken again)
    const stale = `${m3.slice(0, 12)}${'x'.repeat(22)}`;
    const settled = await destinations.settle(
      id,
      'orders',
      dest.id,
      [outcome(m1, true), outcome(m2, false), outcome(stale, true), outcome(m3, true)],
      SETTINGS,
      10,
    );
    expect(settled.results.map((r) => r.result)).toEqual(['acked', 'retry', 'stale', 'acked']);
    expect(settled.results[1].delayMs).toBe(60_000);
    // the three slots are free again: the one message available now is taken in the same call
    expect(settled.taken.status).toBe('ok');
    expect(settled.taken.messages.map((m) => JSON.parse(m.messageJson).body)).toEqual([{ n: 4 }]);
    // every attempt logged, newest first, the stale one too
    const log = await pods.b.http
      .get(dpath('orders', `/${dest.id}/attempts`))
      .set('Authorization', auth);
    expect(log.body.result.attempts).toHaveLength(4);
    // the counters saw them in order: the last one was a success
    const shown = await pods.b.http.get(dpath('orders', `/${dest.id}`)).set('Authorization', auth);
    expect(shown.body.result.consecutive_failures).toBe(0);
    const channel = (await ca.channel('orders')).body.result;
    expect(channel).toMatchObject({ queued: 0, in_flight: 1, delayed: 1 });
    // outcomes for another destination id record nothing, and take nothing
    const m4 = settled.taken.messages[0].leaseId;
    const other = await destinations.settle(
      id,
      'orders',
      'dst_0000000000000000',
      [outcome(m4, true)],
      SETTINGS,
      10,
    );
    expect(other.results.map((r) => r.result)).toEqual(['stale']);
    expect(other.taken).toEqual({ status: 'gone', waitMs: 0, messages: [] });
    expect((await ca.channel('orders')).body.result).toMatchObject({ in_flight: 1 });
  } finally {
    for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.start();
  }
});

test('rate_limit counts starts over a window 2 % longer than the period, so that a receiver sees at most count in any of its own', async () => {
  for (const pod of [pods.a, pods.b]) await pod.relay.deliveries!.stop();
  try {
    const { ca, id, dest } = await setup('br', {
      parallelism: 5,
      rate_limit: { count: 1, period_seconds: 10 },
    });
    await ca.batch('orders', { messages: [1, 2].map((n) => ({ body: { n } })) });
    const destinations = pods.a.relay.relay.destinations;
    const before = Date.now();
    expect((await destinations.take(id, 'orders', dest.id, 10)).messages).toHaveLength(1);
    const next = await destinations.take(id, 'orders', dest.id, 10);
    const elapsed = Date.now() - before;
    expect(next.status).toBe('wait');
    expect(next.messages).toHaveLength(0);
    // 10 s + 200 ms after the first start (a window of exactly the period: at most 10 s)
    expect(next.waitMs).toBeGreaterThan(10_200 - elapsed - 5);
    expect(next.waitMs).toBeLessThanOrEqual(10_200);
  } finally {
    for (const pod of [pods.a, pods.b]) pod.relay.deliveries!.start();
  }
});

test('a busy destination on two pods: every message delivered once but after a failure, every attempt logged and in its history, in fewer calls than attempts', async () => {
  const { ca, auth, dest } = await setup('bb', {
    parallelism: 20,
    retry: { schedule_seconds: [0], max_attempts: 10 },
  });
  const on = await pods.a.http
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ history_seconds: 3600 });
  expect(on.status).toBe(200);
  const calls = async () => {
    let n = 0;
    for (const pod of [pods.a, pods.b]) {
      const text = await pod.relay.metrics.registry.metrics();
      const m =
        /relayq_redis_script_duration_seconds_count\{script="destination_result"\} (\d+)/.exec(
          text,
        );
      n += m ? Number(m[1]) : 0;
    }
    return n;
  };
  const before = await calls();
  let answered = 0;
  // every fourth answer a 500, after a few ms (requests overlap, as with a real receiver)
  receiver.answer = () => ({ status: ++answered % 4 === 0 ? 500 : 200, delayMs: 5 });
  const total = 300;
  const ids: string[] = [];
  for (let i = 0; i < total; i += 100) {
    const sent = await ca.batch('orders', {
      messages: Array.from({ length: 100 }, (_, n) => ({ body: { n: i + n } })),
    });
    ids.push(...(sent.body.result.ids as string[]));
  }
  const requests = () => receiver.received.length;
  await eventually(async () => {
    const c = (await ca.channel('orders')).body.result;
    return c.queued + c.in_flight + c.delayed === 0 && requests() >= total;
  }, 30_000);

  // per message: one success, and a request more only after each failure
  const byId = new Map<string, { ok: number; failed: number }>();
  receiver.received.forEach((r, i) => {
    const id = String(r.headers['x-relayq-message-id']);
    const seen = byId.get(id) ?? { ok: 0, failed: 0 };
    // the receiver answered request i with 500 when (i + 1) % 4 === 0
    if ((i + 1) % 4 === 0) seen.failed++;
    else seen.ok++;
    byId.set(id, seen);
  });
  expect([...byId.keys()].sort()).toEqual([...ids].sort());
  for (const seen of byId.values()) expect(seen.ok).toBe(1);

  // every attempt logged (the log holds up to 1,000), each once
  const logged: string[] = [];
  for (let cursor: string | null = '0'; cursor !== null;) {
    const page: {
      status: number;
      body: {
        result: { attempts: { message_id: string; attempt: number }[]; next_cursor: string | null };
      };
    } = await pods.b.http
      .get(dpath('orders', `/${dest.id}/attempts?limit=100&cursor=${cursor}`))
      .set('Authorization', auth);
    expect(page.status).toBe(200);
    for (const a of page.body.result.attempts) logged.push(`${a.message_id}/${a.attempt}`);
    cursor = page.body.result.next_cursor;
  }
  const sent = receiver.received.map(
    (r) => `${String(r.headers['x-relayq-message-id'])}/${String(r.headers['x-relayq-attempts'])}`,
  );
  expect(logged.sort()).toEqual(sent.sort());
  // and in the histories: a message that failed once has two deliveries, then its ack
  const failedOnce = [...byId.entries()].find(([, s]) => s.failed === 1)![0];
  const detail = await pods.a.http
    .get(`/v1/relay/channels/orders/history/${failedOnce}`)
    .set('Authorization', auth);
  expect(detail.body.result.timeline.map((t: { type: string }) => t.type)).toEqual([
    'received',
    'delivery',
    'retry',
    'delivery',
    'ack',
  ]);
  // batched: fewer result calls than attempts
  expect((await calls()) - before).toBeLessThan(requests());
});
