/** Extension: long polling on pull (`wait_ms`), across two app instances. */
import {
  ADMIN_TOKEN,
  accountWithToken,
  eventually,
  sleep,
  startApp,
  startListeningApp,
} from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, errorEnvelope } from '../../helpers/relayClient';

const pods = useTwoPods(startListeningApp);

const setup = () => accountOnPods(pods, 'lp');

/** Runs fn and returns its result with the milliseconds it took. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - start };
}

test('wait_ms accepts 0 (no wait) and 20000, and refuses 20001, -1, 1.5 and null', async () => {
  const { ca } = await setup();
  const zero = await timed(() => ca.pullOk('orders', { wait_ms: 0 }));
  expect(zero.value).toEqual({ message_backlog_count: 0, messages: [] });
  expect(zero.ms).toBeLessThan(1000);
  // A message already available is answered at once, whatever wait_ms says.
  const id = await ca.sendOk('orders', { body: 'ready' });
  const max = await timed(() => ca.pullOk('orders', { wait_ms: 20000 }));
  expect(max.value.messages.map((m) => m.id)).toEqual([id]);
  expect(max.ms).toBeLessThan(2000);
  const bad: [unknown, string][] = [
    [20001, 'wait_ms must be at most 20000'],
    [-1, 'wait_ms must be at least 0'],
    [1.5, 'wait_ms must be an integer'],
    [null, 'wait_ms must be an integer'],
    ['100', 'wait_ms must be an integer'],
  ];
  for (const [value, message] of bad) {
    const res = await ca.pull('orders', { wait_ms: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorEnvelope(400, message));
  }
});

test('returns early on a send from another instance, well before wait_ms', async () => {
  const { ca, cb } = await setup();
  const waiting = timed(() => ca.pullOk('orders', { wait_ms: 10000 }));
  await sleep(300);
  const id = await cb.sendOk('orders', { body: { from: 'b' } });
  const { value, ms } = await waiting;
  expect(value.messages).toHaveLength(1);
  expect(value.messages[0]).toMatchObject({ id, body: { from: 'b' }, attempts: 1 });
  expect(value.message_backlog_count).toBe(1);
  expect(ms).toBeGreaterThanOrEqual(250);
  expect(ms).toBeLessThan(5000);
});

test('times out empty after about wait_ms when nothing arrives', async () => {
  const { ca, cb } = await setup();
  await cb.sendOk('other', { body: 'elsewhere' }); // another channel does not wake it
  const { value, ms } = await timed(() => ca.pullOk('orders', { wait_ms: 1500 }));
  expect(value).toEqual({ message_backlog_count: 0, messages: [] });
  expect(ms).toBeGreaterThanOrEqual(1450);
  expect(ms).toBeLessThan(4000);
});

test('wakes when a delay ends', async () => {
  const { ca, cb } = await setup();
  const id = await cb.sendOk('orders', { body: 'later', delay_seconds: 1 });
  const { value, ms } = await timed(() => ca.pullOk('orders', { wait_ms: 8000 }));
  expect(value.messages.map((m) => m.id)).toEqual([id]);
  expect(ms).toBeGreaterThanOrEqual(700);
  expect(ms).toBeLessThan(4000);
});

test('wakes when a lease ends, and the message comes back with attempts 2', async () => {
  const { ca, cb } = await setup();
  const id = await cb.sendOk('orders', { body: 'retry me' });
  const first = await cb.pullOk('orders', { visibility_timeout_ms: 1000 });
  expect(first.messages[0].attempts).toBe(1);
  const { value, ms } = await timed(() => ca.pullOk('orders', { wait_ms: 8000 }));
  expect(value.messages).toHaveLength(1);
  expect(value.messages[0]).toMatchObject({ id, attempts: 2 });
  expect(value.messages[0].lease_id).not.toBe(first.messages[0].lease_id);
  expect(ms).toBeGreaterThanOrEqual(700);
  expect(ms).toBeLessThan(4000);
});

test('a long-poller that disconnects stops waiting and does not take the message', async () => {
  const { auth, cb } = await setup();
  const gone = new AbortController();
  const request = fetch(`${pods.a.baseUrl}/v1/relay/channels/orders/messages/pull`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ wait_ms: 10000 }),
    signal: gone.signal,
  }).catch((err: Error) => err.name);
  await eventually(() => pods.a.relay.events.subscribedAccounts() === 1);
  gone.abort();
  expect(await request).toBe('AbortError');
  // The wait ends with the connection: the pod drops its subscription to the account.
  await eventually(() => pods.a.relay.events.subscribedAccounts() === 0);
  const id = await cb.sendOk('orders', { body: 'for the next consumer' });
  await sleep(300);
  const pulled = await cb.pullOk('orders');
  expect(pulled.messages).toHaveLength(1);
  expect(pulled.messages[0]).toMatchObject({ id, attempts: 1 });
});

test('a wait whose token is revoked meanwhile answers 401 and leases nothing', async () => {
  const { id, cb } = await setup();
  const waiter = await accountWithToken(pods.a, id);
  const start = Date.now();
  const waiting = pods.a.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', waiter.auth)
    .send({ wait_ms: 10000 });
  const done = waiting.then((res) => ({
    status: res.status,
    body: res.body,
    ms: Date.now() - start,
  }));
  await eventually(() => pods.a.relay.events.subscribedAccounts() === 1);
  const revoked = await pods.b.http
    .delete(`/v1/admin/accounts/${id}/tokens/${waiter.tokenId}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(revoked.status).toBe(200);
  const res = await done;
  expect(res.status).toBe(401);
  expect(res.body).toEqual(errorEnvelope(401, 'invalid or revoked token'));
  expect(res.ms).toBeLessThan(5000);
  const sent = await cb.sendOk('orders', { body: 1 });
  const pulled = await cb.pullOk('orders');
  expect(pulled.messages.map((m) => [m.id, m.attempts])).toEqual([[sent, 1]]);
});

test('many waiters, one message: exactly one gets it, the others keep waiting and time out empty', async () => {
  const { ca, cb } = await setup();
  const waiters = [ca, cb, ca, cb, ca, cb].map((c) =>
    timed(() => c.pullOk('orders', { wait_ms: 2500 })),
  );
  await sleep(400);
  const id = await cb.sendOk('orders', { body: 'only one' });
  const results = await Promise.all(waiters);
  const winners = results.filter((r) => r.value.messages.length > 0);
  expect(winners).toHaveLength(1);
  expect(winners[0].value.messages[0]).toMatchObject({ id, attempts: 1 });
  expect(winners[0].ms).toBeLessThan(2300);
  for (const loser of results.filter((r) => r.value.messages.length === 0)) {
    expect(loser.ms).toBeGreaterThanOrEqual(2400);
    expect(loser.value).toEqual({ message_backlog_count: 1, messages: [] });
  }
});

test('a waiter that lost the race gets the next message', async () => {
  const { ca, cb } = await setup();
  const w1 = ca.pullOk('orders', { wait_ms: 5000 });
  const w2 = cb.pullOk('orders', { wait_ms: 5000 });
  await sleep(300);
  const first = await cb.sendOk('orders', { body: 1 });
  const winner = await Promise.race([w1, w2]);
  expect(winner.messages.map((m) => m.id)).toEqual([first]);
  const second = await ca.sendOk('orders', { body: 2 });
  const both = await Promise.all([w1, w2]);
  const ids = both.flatMap((r) => r.messages.map((m) => m.id)).sort();
  expect(ids).toEqual([first, second].sort());
});

test('on shutdown, waiting pulls answer at once (200, empty) and new ones do not wait', async () => {
  const { auth } = await setup();
  const c = await startApp(pods.redis);
  try {
    const cc = relay(c, auth);
    const waiting = timed(() => cc.pullOk('orders', { wait_ms: 10000 }));
    await eventually(() => c.relay.events.subscribedAccounts() === 1);
    c.relay.beginShutdown();
    const { value, ms } = await waiting;
    expect(value).toEqual({ message_backlog_count: 0, messages: [] });
    expect(ms).toBeLessThan(3000);
    const late = await timed(() => cc.pullOk('orders', { wait_ms: 10000 }));
    expect(late.value).toEqual({ message_backlog_count: 0, messages: [] });
    expect(late.ms).toBeLessThan(3000);
  } finally {
    await c.close();
  }
});
