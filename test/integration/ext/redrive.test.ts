/** Extension: redrive, moving dead-lettered messages back (or elsewhere), exactly once. */
import { accountWithToken, storageBytes } from '../../helpers/app';
import { accountId, accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, errorEnvelope, type Client, type PulledMessage } from '../../helpers/relayClient';

const pods = useTwoPods();

const setup = () => accountOnPods(pods, 'rd', { plan: 'paid' });

/** Sends n messages to `channel` and dead-letters them into `dlq` (one delivery each). */
async function deadLetter(c: Client, channel: string, dlq: string, n: number): Promise<string[]> {
  await c.configure(channel, { max_attempts: 1, dead_letter_channel: dlq });
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const count = Math.min(100, n - i);
    const batch = Array.from({ length: count }, (_, j) => ({ body: { n: i + j } }));
    ids.push(...(await c.batchOk(channel, { messages: batch })));
    const pulled = (await c.pullOk(channel, { batch_size: 100 })).messages;
    const res = await c.retryOk(
      channel,
      pulled.map((m) => ({ lease_id: m.lease_id })),
    );
    expect(res.retried_count).toBe(count);
  }
  return ids;
}

/** Pulls everything available in a channel (leasing it for a minute). */
async function drain(c: Client, channel: string): Promise<PulledMessage[]> {
  const out: PulledMessage[] = [];
  for (;;) {
    const { messages } = await c.pullOk(channel, { batch_size: 100, visibility_timeout_ms: 60000 });
    if (messages.length === 0) return out;
    out.push(...messages);
  }
}

test('without `to`, messages go back to their source channel with attempts reset', async () => {
  const { ca, cb } = await setup();
  const orders = await deadLetter(ca, 'orders', 'dlq', 2);
  const invoices = await deadLetter(ca, 'invoices', 'dlq', 1);
  expect(await cb.redriveOk('dlq')).toBe(3);
  expect(await ca.pullOk('dlq')).toEqual({ message_backlog_count: 0, messages: [] });
  const back = await ca.pullOk('orders');
  expect(back.messages.map((m) => [m.id, m.attempts, m.body])).toEqual([
    [orders[0], 1, { n: 0 }],
    [orders[1], 1, { n: 1 }],
  ]);
  expect(back.messages.every((m) => m.dead_letter === undefined)).toBe(true);
  const [inv] = (await ca.pullOk('invoices')).messages;
  expect([inv.id, inv.attempts]).toEqual([invoices[0], 1]);
  expect(inv.dead_letter).toBeUndefined();
});

test('a redriven message has its full delivery count again', async () => {
  const { ca } = await setup();
  const [id] = await deadLetter(ca, 'orders', 'dlq', 1);
  expect(await ca.redriveOk('dlq')).toBe(1);
  // max_attempts is 1: its one delivery, retried, sends it back to the dead-letter channel.
  const [m] = (await ca.pullOk('orders')).messages;
  await ca.retryOk('orders', [{ lease_id: m.lease_id }]);
  const [dead] = (await ca.pullOk('dlq')).messages;
  expect([dead.id, dead.dead_letter]).toEqual([id, { source_channel: 'orders', attempts: 1 }]);
});

test('with `to`, messages go to that channel (created if needed), keeping id, body and metadata', async () => {
  const { ca, id: account } = await setup();
  await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'dlq' });
  const id = await ca.sendOk('orders', { body: 'hello', content_type: 'text', metadata: { a: 1 } });
  const direct = await ca.sendOk('dlq', { body: 'sent straight to the dlq' });
  const [m] = (await ca.pullOk('orders')).messages;
  await ca.retryOk('orders', [{ lease_id: m.lease_id }]);
  const stored = await storageBytes(pods.a, account);
  // Without `to`, a message that has no source channel stays.
  expect(await ca.redriveOk('dlq')).toBe(1);
  expect(await ca.redriveOk('dlq', { to: 'replay' })).toBe(1);
  const [back] = (await ca.pullOk('orders')).messages;
  expect(back).toMatchObject({ id, body: 'hello', content_type: 'text', metadata: { a: 1 } });
  const [replayed] = (await ca.pullOk('replay')).messages;
  expect([replayed.id, replayed.attempts, replayed.dead_letter]).toEqual([direct, 1, undefined]);
  expect(await storageBytes(pods.a, account)).toBe(stored);
  expect((await ca.channel('dlq')).body.result.storage_bytes).toBe(0);
});

test('max bounds the count, oldest first; in-flight messages are not moved', async () => {
  const { ca } = await setup();
  const ids = await deadLetter(ca, 'orders', 'dlq', 5);
  const [inFlight] = (await ca.pullOk('dlq', { batch_size: 1 })).messages;
  expect(inFlight.id).toBe(ids[0]);
  expect(await ca.redriveOk('dlq', { max: 2 })).toBe(2);
  expect((await ca.pullOk('orders')).messages.map((m) => m.id)).toEqual([ids[1], ids[2]]);
  expect(await ca.redriveOk('dlq', { to: 'replay', max: 100000 })).toBe(2);
  expect((await ca.pullOk('replay')).messages.map((m) => m.id)).toEqual([ids[3], ids[4]]);
  expect(await ca.redriveOk('dlq')).toBe(0);
  // The in-flight one is still leased in the dead-letter channel.
  expect(await ca.ackOk('dlq', { lease_ids: [inFlight.lease_id] })).toEqual({ acked_count: 1 });
});

test('errors: unknown channel 404, `to` itself, bad max, unknown field', async () => {
  const { ca } = await setup();
  for (const body of [{}, { to: 'orders' }]) {
    const res = await ca.redrive('nope', body);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorEnvelope(404, 'channel nope does not exist'));
  }
  await ca.configure('dlq', {});
  expect(await ca.redriveOk('dlq')).toBe(0);
  const bad: [object, string][] = [
    [{ to: 'dlq' }, 'to must name another channel than the one redriven'],
    [{ max: 0 }, 'max must be at least 1'],
    [{ max: 100001 }, 'max must be at most 100000'],
    [{ max: 1.5 }, 'max must be an integer'],
    [
      { to: 'a b' },
      'to must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot',
    ],
    [{ to: null }, 'to must be a string'],
    [{ target: 'x' }, 'unknown field target'],
  ];
  for (const [body, message] of bad) {
    const res = await ca.redrive('dlq', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorEnvelope(400, message));
  }
});

test('a redrive that would create a channel past the plan limit is a 403 and moves nothing', async () => {
  const id = accountId('rd-free');
  const { auth } = await accountWithToken(pods.a, id);
  const ca = relay(pods.a, auth);
  await deadLetter(ca, 'orders', 'dlq', 1);
  for (const ch of ['c3', 'c4', 'c5']) await ca.configure(ch, {});
  const res = await ca.redrive('dlq', { to: 'c6' });
  expect(res.status).toBe(403);
  expect(res.body).toEqual(
    errorEnvelope(403, 'channel limit reached: the plan allows at most 5 channels'),
  );
  expect((await ca.channel('dlq')).body.result.queued).toBe(1);
});

test('concurrent redrives on two instances move each message exactly once', async () => {
  const { ca, cb, id: account } = await setup();
  const ids = await deadLetter(ca, 'orders', 'dlq', 300);
  const stored = await storageBytes(pods.a, account);
  const moved = await Promise.all([
    ca.redriveOk('dlq', { max: 120 }),
    cb.redriveOk('dlq'),
    ca.redriveOk('dlq', { to: 'replay' }),
    cb.redriveOk('dlq', { to: 'replay', max: 50 }),
  ]);
  expect(moved.reduce((s, n) => s + n, 0)).toBe(300);
  const seen = [
    ...(await drain(ca, 'orders')),
    ...(await drain(ca, 'replay')),
    ...(await drain(ca, 'dlq')),
  ].map((m) => m.id);
  expect(seen).toHaveLength(300);
  expect(new Set(seen)).toEqual(new Set(ids));
  expect((await ca.channel('dlq')).body.result.storage_bytes).toBe(0);
  expect(await storageBytes(pods.a, account)).toBe(stored);
});
