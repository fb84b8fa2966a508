/**
 * Extension: channel settings on PUT /v1/relay/channels/{id}: per-channel
 * defaults (visibility_timeout_ms, delay_seconds, retention_seconds) at their
 * edges, and null resetting them. Pause is in pause.test.ts.
 */
import { DEFAULT_CHANNEL_CONFIG } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { errorEnvelope, type Client } from '../../helpers/relayClient';

const pods = useTwoPods();
const setup = () => accountOnPods(pods, 'set');

const FREE_RETENTION = DEFAULT_CHANNEL_CONFIG.retention_seconds;

/** Pulls until a message comes (a lease ended) or 5 s pass. */
async function pullSoon(c: Client) {
  const start = Date.now();
  for (;;) {
    const r = await c.pullOk('orders');
    if (r.messages.length > 0 || Date.now() - start > 5000) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a new channel shows every setting at its default', async () => {
  const { ca } = await setup();
  await ca.sendOk('orders', { body: 1 });
  const res = await ca.channel('orders');
  expect(res.body.result.config).toEqual(DEFAULT_CHANNEL_CONFIG);
});

test('settings are accepted at their edges and shown by GET on the other pod', async () => {
  const { ca, cb } = await setup();
  const low = await ca.configure('orders', {
    visibility_timeout_ms: 1000,
    delay_seconds: 0,
    retention_seconds: 1,
  });
  expect(low.status).toBe(200);
  expect(low.body.result.config).toMatchObject({
    visibility_timeout_ms: 1000,
    delay_seconds: 0,
    retention_seconds: 1,
    paused: false,
  });
  const high = await ca.configure('orders', {
    visibility_timeout_ms: 43_200_000,
    delay_seconds: 86400,
    retention_seconds: FREE_RETENTION,
  });
  expect(high.status).toBe(200);
  const got = await cb.channel('orders');
  expect(got.body.result.config).toMatchObject({
    visibility_timeout_ms: 43_200_000,
    delay_seconds: 86400,
    retention_seconds: FREE_RETENTION,
    // untouched settings keep their values
    max_attempts: 3,
    dedup_window_seconds: 300,
  });
});

test('out-of-range and ill-typed settings are 400s naming the field, and change nothing', async () => {
  const { ca } = await setup();
  await ca.configure('orders', { visibility_timeout_ms: 5000 });
  const bad: [object, string][] = [
    [{ visibility_timeout_ms: 999 }, 'visibility_timeout_ms must be at least 1000'],
    [{ visibility_timeout_ms: 43_200_001 }, 'visibility_timeout_ms must be at most 43200000'],
    [{ visibility_timeout_ms: 1500.5 }, 'visibility_timeout_ms must be an integer or null'],
    [{ delay_seconds: -1 }, 'delay_seconds must be at least 0'],
    [{ delay_seconds: 86400.5 }, 'delay_seconds must be at most 86400'],
    [{ delay_seconds: '5' }, 'delay_seconds must be a number or null'],
    [{ retention_seconds: 0 }, 'retention_seconds must be at least 1'],
    [
      { retention_seconds: FREE_RETENTION + 1 },
      `retention_seconds must be at most ${FREE_RETENTION} (the plan's retention)`,
    ],
    [{ retention_seconds: 2.5 }, 'retention_seconds must be an integer or null'],
    [{ paused: 'yes' }, 'paused must be true or false'],
    [{ paused: null }, 'paused must be true or false'],
  ];
  for (const [body, message] of bad) {
    const res = await ca.configure('orders', { max_attempts: 7, ...body });
    expect(res.body).toEqual(errorEnvelope(400, message));
    expect(res.status).toBe(400);
  }
  const after = await ca.channel('orders');
  expect(after.body.result.config).toMatchObject({ max_attempts: 3, visibility_timeout_ms: 5000 });
});

test('null resets a setting to its default; omitting it keeps it', async () => {
  const { ca } = await setup();
  await ca.configure('orders', {
    visibility_timeout_ms: 5000,
    delay_seconds: 60,
    retention_seconds: 3600,
  });
  const kept = await ca.configure('orders', { max_attempts: 5 });
  expect(kept.body.result.config).toMatchObject({
    visibility_timeout_ms: 5000,
    delay_seconds: 60,
    retention_seconds: 3600,
  });
  const reset = await ca.configure('orders', {
    visibility_timeout_ms: null,
    delay_seconds: null,
    retention_seconds: null,
  });
  expect(reset.body.result.config).toMatchObject({
    max_attempts: 5,
    visibility_timeout_ms: 30000,
    delay_seconds: 0,
    retention_seconds: FREE_RETENTION,
  });
});

test('delay_seconds delays sends that set none; a send or batch delay overrides it, 0 included', async () => {
  const { ca } = await setup();
  await ca.configure('orders', { delay_seconds: 600 });
  await ca.sendOk('orders', { body: 'default' });
  const now = await ca.sendOk('orders', { body: 'now', delay_seconds: 0 });
  const [batchNow] = await ca.batchOk('orders', { messages: [{ body: 'b' }], delay_seconds: 0 });
  await ca.batchOk('orders', { messages: [{ body: 'bd' }] });
  const pulled = await ca.pullOk('orders', { batch_size: 10 });
  expect(pulled.messages.map((m) => m.id)).toEqual([now, batchNow]);
  const stats = (await ca.channel('orders')).body.result;
  expect(stats.delayed).toBe(2);
  // Reset: sends that set none are available at once again.
  await ca.configure('orders', { delay_seconds: null });
  const later = await ca.sendOk('orders', { body: 'later' });
  expect((await ca.pullOk('orders')).messages.map((m) => m.id)).toEqual([later]);
});

test('visibility_timeout_ms is the lease of pulls and extends that set none', async () => {
  const { ca, cb } = await setup();
  await ca.configure('orders', { visibility_timeout_ms: 1000 });
  await ca.sendOk('orders', { body: 'short' });
  const first = await ca.pullOk('orders');
  expect(first.messages).toHaveLength(1);
  const again = await pullSoon(cb);
  // The 1 s lease ended (a 30 s default would not have).
  expect(again.messages.map((m) => m.attempts)).toEqual([2]);
  // An explicit visibility still wins: 60 s keeps it leased.
  await ca.ackOk('orders', { lease_ids: [again.messages[0].lease_id] });
  await ca.sendOk('orders', { body: 'long' });
  const long = await ca.pullOk('orders', { visibility_timeout_ms: 60000 });
  expect(long.messages).toHaveLength(1);
  // Extend without a visibility uses the channel's 1 s: the lease ends soon after.
  expect(await ca.extendOk('orders', { lease_ids: [long.messages[0].lease_id] })).toBe(1);
  const back = await pullSoon(cb);
  expect(back.messages.map((m) => m.attempts)).toEqual([2]);
});

test('retention_seconds shortens the life of messages sent after it is set', async () => {
  const { ca } = await setup();
  await ca.configure('orders', { retention_seconds: 1 });
  await ca.sendOk('orders', { body: 'brief' });
  const stats = (await ca.channel('orders')).body.result;
  expect(stats.expiring_within_1h).toBe(1);
  const start = Date.now();
  let left = 1;
  while (left > 0 && Date.now() - start < 5000) {
    await new Promise((r) => setTimeout(r, 100));
    left = (await ca.channel('orders')).body.result.queued;
  }
  expect(left).toBe(0);
  expect((await ca.pullOk('orders')).messages).toEqual([]);
  // Reset: the plan's retention again, far beyond the hour.
  await ca.configure('orders', { retention_seconds: null });
  await ca.sendOk('orders', { body: 'kept' });
  expect((await ca.channel('orders')).body.result.expiring_within_1h).toBe(0);
});

test('GET shows oldest_message_age_seconds from Redis time, null when empty', async () => {
  const { ca } = await setup();
  await ca.configure('orders', {});
  expect((await ca.channel('orders')).body.result.oldest_message_age_seconds).toBeNull();
  await ca.sendOk('orders', { body: 1 });
  await new Promise((r) => setTimeout(r, 1100));
  const age = (await ca.channel('orders')).body.result.oldest_message_age_seconds;
  expect(age).toBeGreaterThanOrEqual(1);
  expect(age).toBeLessThan(10);
});
