/** Extensions: lease extension, and retry with delay (negative ack) through ack's `retries`. */
import { sleep, startApp, storageBytes } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, errorEnvelope } from '../../helpers/relayClient';

const pods = useTwoPods();

const setup = () => accountOnPods(pods, 'er');

const UNKNOWN_LEASE = '000000000999AAAAAAAAAAAAAAAAAAAAAA';

describe('extend', () => {
  test('extending past the old deadline keeps the message hidden; the lease id stays valid', async () => {
    const { ca, cb } = await setup();
    const id = await ca.sendOk('orders', { body: 'slow job' });
    const [m] = (await ca.pullOk('orders', { visibility_timeout_ms: 1000 })).messages;
    expect(
      await cb.extendOk('orders', { lease_ids: [m.lease_id], visibility_timeout_ms: 5000 }),
    ).toBe(1);
    await sleep(1700);
    const during = await cb.pullOk('orders');
    expect(during).toEqual({ message_backlog_count: 1, messages: [] });
    expect(await ca.ackOk('orders', { lease_ids: [m.lease_id] })).toEqual({ acked_count: 1 });
    expect(id).toBe(m.id);
  });

  test('the new deadline is now + the timeout: a shorter extension ends the lease sooner', async () => {
    const { ca } = await setup();
    const id = await ca.sendOk('orders', { body: 1 });
    const [m] = (await ca.pullOk('orders', { visibility_timeout_ms: 60000 })).messages;
    expect(
      await ca.extendOk('orders', { lease_ids: [m.lease_id], visibility_timeout_ms: 1000 }),
    ).toBe(1);
    await sleep(1300);
    const again = await ca.pullOk('orders');
    expect(again.messages.map((x) => [x.id, x.attempts])).toEqual([[id, 2]]);
  });

  test('extended_count counts only current leases: stale, unknown, expired and repeated ones are not', async () => {
    const { ca } = await setup();
    const first = await ca.sendOk('orders', { body: 'A' });
    const second = await ca.sendOk('orders', { body: 'B' });
    const pulled = (await ca.pullOk('orders', { visibility_timeout_ms: 1000 })).messages;
    expect(pulled.map((m) => m.id)).toEqual([first, second]);
    const [a1, b1] = pulled.map((m) => m.lease_id);
    await sleep(1300);
    const [a2] = (await ca.pullOk('orders', { batch_size: 1 })).messages;
    expect(a2.id).toBe(first);
    // a1: stale (A was leased again); b1: its deadline passed; a2 given twice.
    expect(
      await ca.extendOk('orders', {
        lease_ids: [a1, b1, UNKNOWN_LEASE, 'short', a2.lease_id, a2.lease_id],
        visibility_timeout_ms: 5000,
      }),
    ).toBe(1);
    expect(await ca.extendOk('orders', { lease_ids: [] })).toBe(0);
    expect(await ca.extendOk('nowhere', { lease_ids: [a2.lease_id] })).toBe(0);
  });

  test('an acked or retried message is not extended', async () => {
    const { ca } = await setup();
    await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    const [m1, m2] = (await ca.pullOk('orders')).messages;
    await ca.ackOk('orders', { lease_ids: [m1.lease_id], retries: [{ lease_id: m2.lease_id }] });
    expect(await ca.extendOk('orders', { lease_ids: [m1.lease_id, m2.lease_id] })).toBe(0);
  });

  test('visibility_timeout_ms has the bounds of pull (1000..43200000) and lease_ids is required', async () => {
    const { ca } = await setup();
    await ca.sendOk('orders', { body: 1 });
    const [m] = (await ca.pullOk('orders')).messages;
    for (const ms of [1000, 43200000]) {
      expect(
        await ca.extendOk('orders', { lease_ids: [m.lease_id], visibility_timeout_ms: ms }),
      ).toBe(1);
    }
    expect(await ca.extendOk('orders', { lease_ids: [m.lease_id] })).toBe(1); // default 30000
    const bad: [object, string][] = [
      [
        { lease_ids: [m.lease_id], visibility_timeout_ms: 999 },
        'visibility_timeout_ms must be at least 1000',
      ],
      [
        { lease_ids: [m.lease_id], visibility_timeout_ms: 43200001 },
        'visibility_timeout_ms must be at most 43200000',
      ],
      [
        { lease_ids: [m.lease_id], visibility_timeout_ms: 1500.5 },
        'visibility_timeout_ms must be an integer',
      ],
      [{ visibility_timeout_ms: 5000 }, 'required field lease_ids is missing'],
      [{ lease_ids: 'x' }, 'lease_ids must be an array'],
      [{ lease_ids: Array(101).fill('x') }, 'lease_ids must have at most 100 entries'],
      [{ lease_ids: [], extra: 1 }, 'unknown field extra'],
    ];
    for (const [body, message] of bad) {
      const res = await ca.extend('orders', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorEnvelope(400, message));
    }
  });
});

describe('retry with delay', () => {
  test('a retried message reappears after its delay with the attempt counted', async () => {
    const { ca, cb } = await setup();
    const id = await ca.sendOk('orders', { body: 'webhook' });
    const [m] = (await ca.pullOk('orders', { visibility_timeout_ms: 60000 })).messages;
    expect(await cb.retryOk('orders', [{ lease_id: m.lease_id, delay_seconds: 1 }])).toEqual({
      acked_count: 0,
      retried_count: 1,
    });
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 1, messages: [] });
    const start = Date.now();
    const back = await ca.pullOk('orders', { wait_ms: 6000 });
    expect(Date.now() - start).toBeGreaterThanOrEqual(600);
    expect(back.messages.map((x) => [x.id, x.attempts])).toEqual([[id, 2]]);
  });

  test('a retry with delay 0 (or none) is available at once', async () => {
    const { ca } = await setup();
    const ids = await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    const pulled = (await ca.pullOk('orders', { visibility_timeout_ms: 60000 })).messages;
    const res = await ca.retryOk('orders', [
      { lease_id: pulled[0].lease_id, delay_seconds: 0 },
      { lease_id: pulled[1].lease_id },
    ]);
    expect(res).toEqual({ acked_count: 0, retried_count: 2 });
    const again = await ca.pullOk('orders');
    expect(again.messages.map((x) => [x.id, x.attempts])).toEqual([
      [ids[0], 2],
      [ids[1], 2],
    ]);
  });

  test('the lease stays current until the message is pulled again', async () => {
    const { ca } = await setup();
    await ca.sendOk('orders', { body: 1 });
    const [m] = (await ca.pullOk('orders')).messages;
    await ca.retryOk('orders', [{ lease_id: m.lease_id, delay_seconds: 60 }]);
    // Changed its mind: the same lease can still acknowledge the waiting message.
    expect(await ca.ackOk('orders', { lease_ids: [m.lease_id] })).toEqual({ acked_count: 1 });
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });

    await ca.sendOk('orders', { body: 2 });
    const [n] = (await ca.pullOk('orders')).messages;
    await ca.retryOk('orders', [{ lease_id: n.lease_id }]);
    const [n2] = (await ca.pullOk('orders')).messages;
    expect(
      await ca.ackOk('orders', { lease_ids: [n.lease_id], retries: [{ lease_id: n.lease_id }] }),
    ).toEqual({
      acked_count: 0,
      retried_count: 0,
    });
    expect(await ca.ackOk('orders', { lease_ids: [n2.lease_id] })).toEqual({ acked_count: 1 });
  });

  test('retried_count counts each current lease once; acks and retries in one call', async () => {
    const { ca } = await setup();
    await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }, { body: 3 }] });
    const [m1, m2, m3] = (await ca.pullOk('orders')).messages;
    const res = await ca.ackOk('orders', {
      lease_ids: [m1.lease_id, m1.lease_id, UNKNOWN_LEASE],
      retries: [
        { lease_id: m2.lease_id, delay_seconds: 30 },
        { lease_id: m2.lease_id, delay_seconds: 0 },
        { lease_id: m1.lease_id },
        { lease_id: UNKNOWN_LEASE },
        { lease_id: 'not-a-lease' },
      ],
    });
    expect(res).toEqual({ acked_count: 1, retried_count: 1 });
    // The first retry of m2 (30 s) was the one applied; m3 is still in flight.
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 2, messages: [] });
    expect(await ca.ackOk('orders', { lease_ids: [m3.lease_id] })).toEqual({ acked_count: 1 });
  });

  test('acks and retries on a fresh instance are both counted when the channel has a dead-letter channel', async () => {
    // A fresh pod does not know the dead-letter channel yet: the script asks for its keys
    // and runs again; the acks of the first run must not be lost from the count.
    const { ca, auth } = await setup();
    expect((await ca.configure('orders', { dead_letter_channel: 'orders-dlq' })).status).toBe(200);
    await ca.batchOk('orders', { messages: [{ body: 1 }, { body: 2 }] });
    const [m1, m2] = (await ca.pullOk('orders')).messages;
    const fresh = await startApp(pods.redis);
    try {
      expect(
        await relay(fresh, auth).ackOk('orders', {
          lease_ids: [m1.lease_id],
          retries: [{ lease_id: m2.lease_id }],
        }),
      ).toEqual({ acked_count: 1, retried_count: 1 });
    } finally {
      await fresh.close();
    }
  });

  test('a retry of the 3rd delivery dead-letters at once into the configured channel', async () => {
    const { ca, cb } = await setup();
    await ca.configure('orders', { dead_letter_channel: 'orders-dlq' });
    const id = await ca.sendOk('orders', { body: { n: 1 }, metadata: { k: 'v' } });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [m] = (await ca.pullOk('orders')).messages;
      expect(m.attempts).toBe(attempt);
      expect(await cb.retryOk('orders', [{ lease_id: m.lease_id, delay_seconds: 0 }])).toEqual({
        acked_count: 0,
        retried_count: 1,
      });
    }
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
    const dead = await ca.pullOk('orders-dlq');
    expect(dead.messages).toHaveLength(1);
    expect(dead.messages[0]).toMatchObject({
      id,
      body: { n: 1 },
      metadata: { k: 'v' },
      attempts: 1,
      dead_letter: { source_channel: 'orders', attempts: 3 },
    });
  });

  test('without a dead-letter channel, a retry of the last delivery discards the message', async () => {
    const { ca, id: account } = await setup();
    await ca.configure('orders', { max_attempts: 2 });
    await ca.sendOk('orders', { body: 'x'.repeat(100) });
    const before = await storageBytes(pods.a, account);
    expect(before).toBe(104);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const [m] = (await ca.pullOk('orders')).messages;
      expect(m.attempts).toBe(attempt);
      // The delay of the last retry does not matter: the message leaves at once.
      await ca.retryOk('orders', [{ lease_id: m.lease_id, delay_seconds: attempt === 2 ? 5 : 0 }]);
    }
    expect(await ca.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
    expect(await storageBytes(pods.a, account)).toBe(0);
  });

  test('ack needs lease_ids or retries; retries are validated', async () => {
    const { ca } = await setup();
    expect(await ca.retryOk('orders', [])).toEqual({ acked_count: 0, retried_count: 0 });
    expect(await ca.ackOk('orders', { lease_ids: [] })).toEqual({ acked_count: 0 });
    const bad: [object, string][] = [
      [{}, 'required field lease_ids is missing'],
      [{ retries: [{}] }, 'required field retries[0].lease_id is missing'],
      [
        { retries: [{ lease_id: 'x', delay_seconds: 86401 }] },
        'retries[0].delay_seconds must be at most 86400',
      ],
      [
        { retries: [{ lease_id: 'x', delay_seconds: -1 }] },
        'retries[0].delay_seconds must be at least 0',
      ],
      [{ retries: [{ lease_id: 'x', delay: 1 }] }, 'unknown field retries[0].delay'],
      [{ retries: {} }, 'retries must be an array'],
      [{ retries: Array(101).fill({ lease_id: 'x' }) }, 'retries must have at most 100 entries'],
    ];
    for (const [body, message] of bad) {
      const res = await ca.ack('orders', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorEnvelope(400, message));
    }
  });
});
