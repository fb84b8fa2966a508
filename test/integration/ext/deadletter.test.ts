/** Extensions: channel configuration (PUT/GET) and dead-letter channels. */
import {
  DEFAULT_CHANNEL_CONFIG,
  accountWithToken,
  eventually,
  sleep,
  startApp,
  storageBytes,
} from '../../helpers/app';
import { accountId, accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, errorEnvelope } from '../../helpers/relayClient';

const pods = useTwoPods();

const setup = () => accountOnPods(pods, 'dl');

const DEFAULTS = DEFAULT_CHANNEL_CONFIG;
const LIMIT_403 = 'channel limit reached: the plan allows at most 5 channels';

describe('channel configuration', () => {
  test('PUT creates the channel with the defaults; GET shows the stats and config', async () => {
    const { ca } = await setup();
    const missing = await ca.channel('orders');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(errorEnvelope(404, 'channel orders does not exist'));
    const put = await ca.configure('orders', {});
    expect(put.status).toBe(200);
    expect(put.body.result).toEqual({
      id: 'orders',
      queued: 0,
      delayed: 0,
      in_flight: 0,
      groups: 0,
      blocked_groups: 0,
      dead_count: 0,
      storage_bytes: 0,
      oldest_message_ms: null,
      oldest_message_age_seconds: null,
      expiring_within_1h: 0,
      config: DEFAULTS,
    });
    const got = await ca.channel('orders');
    expect(got.status).toBe(200);
    expect(got.body.result).toEqual(put.body.result);
  });

  test('each field changes alone; dead_letter_channel creates that channel; null removes it', async () => {
    const { ca } = await setup();
    await ca.configure('orders', { max_attempts: 5 });
    const set = await ca.configure('orders', { dead_letter_channel: 'orders-dlq' });
    expect(set.body.result.config).toEqual({
      ...DEFAULTS,
      max_attempts: 5,
      dead_letter_channel: 'orders-dlq',
    });
    const dlq = await ca.channel('orders-dlq');
    expect(dlq.status).toBe(200);
    expect(dlq.body.result.config).toEqual(DEFAULTS);
    const window = await ca.configure('orders', { dedup_window_seconds: 60 });
    expect(window.body.result.config).toEqual({
      ...DEFAULTS,
      dead_letter_channel: 'orders-dlq',
      max_attempts: 5,
      dedup_window_seconds: 60,
    });
    const cleared = await ca.configure('orders', { dead_letter_channel: null });
    expect(cleared.body.result.config).toEqual({
      ...DEFAULTS,
      max_attempts: 5,
      dedup_window_seconds: 60,
    });
    expect((await ca.channel('orders')).body.result.config.dead_letter_channel).toBeNull();
  });

  test('max_attempts is 1 to 100; dead_letter_channel must be another valid channel id', async () => {
    const { ca } = await setup();
    for (const n of [1, 100]) {
      expect(
        (await ca.configure('orders', { max_attempts: n })).body.result.config.max_attempts,
      ).toBe(n);
    }
    const bad: [object, string][] = [
      [{ max_attempts: 0 }, 'max_attempts must be at least 1'],
      [{ max_attempts: 101 }, 'max_attempts must be at most 100'],
      [{ max_attempts: 2.5 }, 'max_attempts must be an integer'],
      [{ max_attempts: null }, 'max_attempts must be an integer'],
      [
        { dead_letter_channel: 'orders' },
        'dead_letter_channel must name another channel than the one configured',
      ],
      [
        { dead_letter_channel: '.hidden' },
        'dead_letter_channel must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot',
      ],
      [{ dead_letter_channel: 5 }, 'dead_letter_channel must be a string or null'],
      [{ dead_letter: 'x' }, 'unknown field dead_letter'],
    ];
    for (const [body, message] of bad) {
      const res = await ca.configure('orders', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorEnvelope(400, message));
    }
    expect((await ca.channel('orders')).body.result.config).toEqual({
      ...DEFAULTS,
      max_attempts: 100,
    });
  });

  test('PUT creates channels within the plan channel limit (free: 5), a new dead-letter channel included', async () => {
    const { ca } = await setup();
    for (const ch of ['c1', 'c2', 'c3', 'c4'])
      expect((await ca.configure(ch, {})).status).toBe(200);
    // c5 plus a new dead-letter channel would make 6.
    const both = await ca.configure('c5', { dead_letter_channel: 'c5-dlq' });
    expect(both.status).toBe(403);
    expect(both.body).toEqual(errorEnvelope(403, LIMIT_403));
    expect((await ca.channel('c5')).status).toBe(404);
    // An existing channel as the dead-letter channel takes no new slot.
    expect((await ca.configure('c5', { dead_letter_channel: 'c1' })).status).toBe(200);
    const sixth = await ca.configure('c6', {});
    expect(sixth.status).toBe(403);
    expect(sixth.body).toEqual(errorEnvelope(403, LIMIT_403));
    const existingNewDlq = await ca.configure('c1', { dead_letter_channel: 'c1-dlq' });
    expect(existingNewDlq.status).toBe(403);
    expect(existingNewDlq.body).toEqual(errorEnvelope(403, LIMIT_403));
    expect((await ca.channel('c1')).body.result.config).toEqual(DEFAULTS);
    // Reconfiguring an existing channel at the limit works.
    expect((await ca.configure('c1', { max_attempts: 2 })).status).toBe(200);
  });
  test('a scoped token may name only its channels as dead-letter channel and redrive target', async () => {
    const id = accountId('dl-scope');
    await accountWithToken(pods.a, id);
    const { auth } = await accountWithToken(pods.a, id, { channels: ['orders', 'orders-dlq'] });
    const ca = relay(pods.a, auth);
    expect((await ca.configure('orders', { dead_letter_channel: 'orders-dlq' })).status).toBe(200);
    const put = await ca.configure('orders', { dead_letter_channel: 'elsewhere' });
    expect(put.status).toBe(403);
    expect(put.body).toEqual(errorEnvelope(403, 'this token may not use channel elsewhere'));
    const redrive = await ca.redrive('orders-dlq', { to: 'elsewhere' });
    expect(redrive.status).toBe(403);
    expect(redrive.body).toEqual(errorEnvelope(403, 'this token may not use channel elsewhere'));
    expect((await ca.channel('orders')).body.result.config.dead_letter_channel).toBe('orders-dlq');
  });
});

describe('dead-lettering', () => {
  test('a message whose last lease ends goes to the dead-letter channel as it was sent', async () => {
    const { ca, cb, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' });
    const id = await ca.sendOk('orders', {
      body: 'plain text',
      content_type: 'text',
      metadata: { tenant: 't1', n: [1, 2] },
    });
    const stored = await storageBytes(pods.a, account);
    const [m] = (await cb.pullOk('orders', { visibility_timeout_ms: 1000 })).messages;
    expect(m.attempts).toBe(1);
    // The sweeper moves it once the lease ends, and announces it on the dead-letter channel.
    const [dead] = (await ca.pullOk('orders-dlq', { wait_ms: 5000 })).messages;
    expect(dead).toEqual({
      body: 'plain text',
      id,
      timestamp_ms: m.timestamp_ms,
      attempts: 1,
      metadata: { tenant: 't1', n: [1, 2] },
      lease_id: dead.lease_id,
      content_type: 'text',
      dead_letter: { source_channel: 'orders', attempts: 1 },
    });
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
    // Still stored, now in the dead-letter channel.
    expect(await storageBytes(pods.a, account)).toBe(stored);
    expect((await ca.channel('orders')).body.result.storage_bytes).toBe(0);
    expect((await ca.channel('orders-dlq')).body.result.storage_bytes).toBe(stored);
    // The old lease is gone with the move.
    expect(await ca.ackOk('orders', { lease_ids: [m.lease_id] })).toEqual({ acked_count: 0 });
    expect(await ca.ackOk('orders-dlq', { lease_ids: [dead.lease_id] })).toEqual({
      acked_count: 1,
    });
    expect(await storageBytes(pods.a, account)).toBe(0);
  });

  test('by default a message is delivered 3 times, then dead-lettered with attempts 3', async () => {
    const { ca, cb } = await setup();
    await ca.configure('orders', { dead_letter_channel: 'orders-dlq' });
    const id = await ca.sendOk('orders', { body: { n: 1 } });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const pulled = await (attempt % 2 ? ca : cb).pullOk('orders', {
        visibility_timeout_ms: 1000,
        wait_ms: 5000,
      });
      expect(pulled.messages.map((m) => [m.id, m.attempts])).toEqual([[id, attempt]]);
    }
    const dead = await ca.pullOk('orders-dlq', { wait_ms: 5000 });
    expect(dead.messages.map((m) => [m.id, m.attempts, m.dead_letter])).toEqual([
      [id, 1, { source_channel: 'orders', attempts: 3 }],
    ]);
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  });

  test('a pull that finds an ended last lease dead-letters it (sweepers stopped)', async () => {
    const { ca, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' });
    const ids = await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    await ca.pullOk('orders', { visibility_timeout_ms: 1000, batch_size: 1 });
    await pods.a.relay.sweeper.stop();
    await pods.b.relay.sweeper.stop();
    try {
      await sleep(1200);
      const pulled = await ca.pullOk('orders');
      // The first message left for the dead-letter channel; the second is delivered.
      expect(pulled.messages.map((m) => [m.id, m.attempts])).toEqual([[ids[1], 1]]);
      expect(pulled.message_backlog_count).toBe(1);
      const dead = await ca.pullOk('orders-dlq');
      expect(dead.messages.map((m) => [m.id, m.dead_letter])).toEqual([
        [ids[0], { source_channel: 'orders', attempts: 1 }],
      ]);
      expect(await storageBytes(pods.a, account)).toBe(6);
    } finally {
      pods.a.relay.sweeper.start();
      pods.b.relay.sweeper.start();
    }
  });

  test('without a dead-letter channel the message is discarded and its storage freed', async () => {
    const { ca, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 1 });
    await ca.sendOk('orders', { body: 'gone' });
    expect(await storageBytes(pods.a, account)).toBe(8);
    await ca.pullOk('orders', { visibility_timeout_ms: 1000 });
    await eventually(async () => (await storageBytes(pods.a, account)) === 0, 5000);
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
    const channels = await pods.a.http
      .get('/v1/relay/channels')
      .set('Authorization', (await accountWithToken(pods.a, account)).auth);
    expect(channels.body.result.channels.map((c: { id: string }) => c.id)).toEqual(['orders']);
  });

  test('max_attempts is per channel: 5 deliveries before dead-lettering', async () => {
    const { ca } = await setup();
    await ca.configure('orders', { max_attempts: 5, dead_letter_channel: 'dlq' });
    const id = await ca.sendOk('orders', { body: 1 });
    for (let attempt = 1; attempt <= 5; attempt++) {
      const [m] = (await ca.pullOk('orders')).messages;
      expect([m.id, m.attempts]).toEqual([id, attempt]);
      await ca.retryOk('orders', [{ lease_id: m.lease_id }]);
    }
    const [dead] = (await ca.pullOk('dlq')).messages;
    expect(dead.dead_letter).toEqual({ source_channel: 'orders', attempts: 5 });
  });

  test('a dead-letter channel changed on another instance is used at once', async () => {
    const { ca, cb } = await setup();
    await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'old-dlq' });
    await ca.sendOk('orders', { body: 1 });
    const [first] = (await ca.pullOk('orders')).messages;
    await ca.retryOk('orders', [{ lease_id: first.lease_id }]); // a now knows old-dlq
    expect((await ca.pullOk('old-dlq')).messages).toHaveLength(1);
    await cb.configure('orders', { dead_letter_channel: 'new-dlq' });
    const id = await cb.sendOk('orders', { body: 2 });
    const [second] = (await ca.pullOk('orders')).messages;
    await ca.retryOk('orders', [{ lease_id: second.lease_id }]);
    expect((await ca.pullOk('new-dlq')).messages.map((m) => m.id)).toEqual([id]);
    expect((await ca.pullOk('old-dlq')).message_backlog_count).toBe(1); // only the first, in flight
  });

  test('a dead-letter channel removed on another instance is honoured at once', async () => {
    const { ca, cb, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'dlq' });
    await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    const [first, second] = (await ca.pullOk('orders')).messages;
    await ca.retryOk('orders', [{ lease_id: first.lease_id }]); // a now knows dlq
    await cb.configure('orders', { dead_letter_channel: null });
    expect(await ca.retryOk('orders', [{ lease_id: second.lease_id }])).toEqual({
      acked_count: 0,
      retried_count: 1,
    });
    expect((await ca.pullOk('dlq')).messages.map((m) => m.id)).toEqual([first.id]);
    expect(await storageBytes(pods.a, account)).toBe(3); // the discarded one is freed
  });

  test('a dead-lettered message keeps its retention expiry and is deleted when it passes', async () => {
    const short = await startApp(pods.redis, {
      RELAY_PLANS: '{"brief":{"max_storage_bytes":1000000,"max_channels":5,"retention_seconds":2}}',
    });
    try {
      const id = accountId('dl-retention');
      await short.relay.store.accounts.create(id, 'brief');
      const cs = relay(short, (await accountWithToken(short, id)).auth);
      await cs.configure('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' });
      await cs.sendOk('orders', { body: 1 });
      const [m] = (await cs.pullOk('orders')).messages;
      await cs.retryOk('orders', [{ lease_id: m.lease_id }]);
      expect((await cs.channel('orders-dlq')).body.result.queued).toBe(1);
      expect(await storageBytes(short, id)).toBe(3);
      await eventually(async () => (await storageBytes(short, id)) === 0, 6000);
      expect(await cs.pullOk('orders-dlq')).toEqual({ message_backlog_count: 0, messages: [] });
    } finally {
      await short.close();
    }
  });

  test('a dead-lettered message counts toward the storage limit', async () => {
    const { ca, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 1, dead_letter_channel: 'orders-dlq' });
    const big = 'x'.repeat(120_000);
    const sent = [];
    for (let i = 0; i < 83; i++) sent.push(await ca.sendOk('orders', { body: big }));
    const pulled = (await ca.pullOk('orders', { batch_size: 100 })).messages;
    expect(pulled).toHaveLength(83);
    for (let i = 0; i < pulled.length; i += 50) {
      await ca.retryOk(
        'orders',
        pulled.slice(i, i + 50).map((m) => ({ lease_id: m.lease_id })),
      );
    }
    expect((await ca.pullOk('orders')).message_backlog_count).toBe(0);
    expect(await storageBytes(pods.a, account)).toBe(83 * 120_004);
    // 83 x 120004 = 9960332 bytes held; one more message would pass 10 MB.
    const res = await ca.send('orders', { body: big });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(
      errorEnvelope(
        403,
        'storage limit reached: the plan allows at most 10000000 bytes of stored messages',
      ),
    );
  });
});
