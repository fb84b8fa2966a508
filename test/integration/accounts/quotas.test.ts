/**
 * Plan limits (docs/operator.md, "Plans" and "Quotas"): storage and channel
 * count, checked inside the send script, exact at the edge and under
 * concurrent senders on two pods over one Redis.
 */
import { accountWithToken, ADMIN_TOKEN, type TestApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const PLANS = JSON.stringify({
  tiny: { max_storage_bytes: 1000, max_channels: 3, retention_seconds: 3600 },
  roomy: { max_storage_bytes: 2000, max_channels: 5, retention_seconds: 3600 },
});
const env = { RELAY_PLANS: PLANS };

/** A body whose message is exactly `bytes` bytes: JSON string + quotes + `{}` metadata. */
const bodyOf = (bytes: number) => 'x'.repeat(bytes - 4);

const STORAGE_403 = {
  success: false,
  errors: [
    {
      code: 403,
      message: 'storage limit reached: the plan allows at most 1000 bytes of stored messages',
    },
  ],
  messages: [],
  result: null,
};
const CHANNEL_403 = (max: number) => ({
  success: false,
  errors: [
    { code: 403, message: `channel limit reached: the plan allows at most ${max} channels` },
  ],
  messages: [],
  result: null,
});

const rq = useRelay({ pods: 2, env });
let a: TestApp;
let b: TestApp;
beforeAll(() => ({ a, b } = rq));

async function usage(account = 'acme') {
  const res = await a.http
    .get(`/v1/admin/accounts/${account}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(res.status).toBe(200);
  return res.body.result.usage as { storage_bytes: number; channels: number };
}

function send(app: TestApp, auth: string, channel: string, bytes: number) {
  return app.http
    .post(`/v1/relay/channels/${channel}/messages`)
    .set('Authorization', auth)
    .send({ body: bodyOf(bytes) });
}

async function pullAll(auth: string, channel: string) {
  const res = await a.http
    .post(`/v1/relay/channels/${channel}/messages/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 100 });
  expect(res.status).toBe(200);
  return res.body.result.messages as { lease_id: string; id: string }[];
}

describe('storage limit', () => {
  test('a send that fills the plan exactly is stored; one byte more is a 403 that stores nothing', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    expect((await send(a, auth, 'orders', 600)).status).toBe(200);
    expect((await send(a, auth, 'orders', 400)).status).toBe(200);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });

    const refused = await send(b, auth, 'orders', 5);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(STORAGE_403);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });
    expect((await pullAll(auth, 'orders')).length).toBe(2);
  });

  test('a refused send to a new channel does not create the channel', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    expect((await send(a, auth, 'orders', 1000)).status).toBe(200);
    const refused = await send(a, auth, 'alerts', 5);
    expect(refused.body).toEqual(STORAGE_403);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });
    const get = await a.http.get('/v1/relay/channels/alerts').set('Authorization', auth);
    expect(get.status).toBe(404);
  });

  test('a batch that would pass the limit is refused whole', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    expect((await send(a, auth, 'orders', 700)).status).toBe(200);
    const batch = await a.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', auth)
      .send({ messages: [{ body: bodyOf(100) }, { body: bodyOf(100) }, { body: bodyOf(101) }] });
    expect(batch.status).toBe(403);
    expect(batch.body).toEqual(STORAGE_403);
    expect(await usage()).toEqual({ storage_bytes: 700, channels: 1 });
    expect((await pullAll(auth, 'orders')).length).toBe(1);

    const fits = await a.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', auth)
      .send({ messages: [{ body: bodyOf(100) }, { body: bodyOf(100) }, { body: bodyOf(100) }] });
    expect(fits.status).toBe(200);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });
  });

  test('20 concurrent senders on two pods never pass the limit, and reuse what acks free', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    const round = async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => send(i % 2 ? b : a, auth, 'orders', 100)),
      );
      const ok = results.filter((r) => r.status === 200).length;
      for (const r of results) {
        if (r.status !== 200) expect(r.body).toEqual(STORAGE_403);
      }
      return ok;
    };
    expect(await round()).toBe(10);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });

    // Free 4 messages: exactly 4 of the next 20 concurrent sends fit, none wrongly refused.
    const leased = await pullAll(auth, 'orders');
    const ack = await b.http
      .post('/v1/relay/channels/orders/messages/ack')
      .set('Authorization', auth)
      .send({ lease_ids: leased.slice(0, 4).map((m) => m.lease_id) });
    expect(ack.body.result).toEqual({ acked_count: 4 });
    expect(await usage()).toEqual({ storage_bytes: 600, channels: 1 });
    expect(await round()).toBe(4);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 1 });

    // Free everything: 10 of the next 20 fit again, spread over two channels.
    const purge = await a.http
      .post('/v1/relay/channels/orders/messages/purge')
      .set('Authorization', auth)
      .send({});
    expect(purge.body.result).toEqual({ purged_count: 10 });
    expect(await usage()).toEqual({ storage_bytes: 0, channels: 1 });
    const mixed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(i % 2 ? b : a, auth, i % 4 < 2 ? 'orders' : 'alerts', 100),
      ),
    );
    expect(mixed.filter((r) => r.status === 200)).toHaveLength(10);
    expect(await usage()).toEqual({ storage_bytes: 1000, channels: 2 });
  });
});

describe('channel limit', () => {
  test('the last channel slot is usable; the next new channel is a 403', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    for (const ch of ['c1', 'c2', 'c3']) expect((await send(a, auth, ch, 10)).status).toBe(200);
    const refused = await send(b, auth, 'c4', 10);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(CHANNEL_403(3));
    // existing channels still take messages
    expect((await send(b, auth, 'c3', 10)).status).toBe(200);
    expect(await usage()).toEqual({ storage_bytes: 40, channels: 3 });
  });

  test('20 concurrent senders to 20 new channels on two pods create exactly the limit', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? b : a, auth, `ch${i}`, 10)),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(3);
    for (const r of results) if (r.status !== 200) expect(r.body).toEqual(CHANNEL_403(3));
    expect(await usage()).toEqual({ storage_bytes: 30, channels: 3 });

    // Deleting a channel frees its slot: of 20 concurrent senders to new channels, exactly one wins.
    const list = await a.http.get('/v1/relay/channels').set('Authorization', auth);
    const victim = list.body.result.channels[0].id as string;
    const del = await b.http.delete(`/v1/relay/channels/${victim}`).set('Authorization', auth);
    expect(del.body.result).toEqual({ deleted_count: 1 });
    expect(await usage()).toEqual({ storage_bytes: 20, channels: 2 });
    const again = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? b : a, auth, `new${i}`, 10)),
    );
    expect(again.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await usage()).toEqual({ storage_bytes: 30, channels: 3 });
  });

  test('configuring a new channel counts toward the limit, and so does a new dead-letter channel', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    const put = (ch: string, body: object) =>
      a.http.put(`/v1/relay/channels/${ch}`).set('Authorization', auth).send(body);
    expect((await put('c1', { max_attempts: 5 })).status).toBe(200);
    expect((await put('c2', { dead_letter_channel: 'c3' })).status).toBe(200);
    expect(await usage()).toEqual({ storage_bytes: 0, channels: 3 });
    const refused = await put('c4', { max_attempts: 2 });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(CHANNEL_403(3));

    // An existing channel pointed at a new dead-letter channel: refused, config unchanged.
    const dlqRefused = await put('c1', { dead_letter_channel: 'c9' });
    expect(dlqRefused.status).toBe(403);
    expect(dlqRefused.body).toEqual(CHANNEL_403(3));
    const c1 = await a.http.get('/v1/relay/channels/c1').set('Authorization', auth);
    expect(c1.body.result.config).toEqual({
      dead_letter_channel: null,
      max_attempts: 5,
      dedup_window_seconds: 300,
      paused: false,
      visibility_timeout_ms: 30000,
      delay_seconds: 0,
      retention_seconds: 3600,
      receive_wait_seconds: 0,
      history_seconds: 0,
      group_order: 'strict',
      fifo: false,
    });
    // ... but an existing one is fine
    expect((await put('c1', { dead_letter_channel: 'c3' })).status).toBe(200);
    expect(await usage()).toEqual({ storage_bytes: 0, channels: 3 });
  });

  test('a new channel plus a new dead-letter channel need two free slots', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    for (const ch of ['c1', 'c2']) expect((await send(a, auth, ch, 10)).status).toBe(200);
    const refused = await a.http
      .put('/v1/relay/channels/c3')
      .set('Authorization', auth)
      .send({ dead_letter_channel: 'c4' });
    expect(refused.body).toEqual(CHANNEL_403(3));
    expect(await usage()).toEqual({ storage_bytes: 20, channels: 2 });
  });
});

describe('plan change', () => {
  test('new limits apply from the next request on, on every pod', async () => {
    const { auth } = await accountWithToken(a, 'acme', { plan: 'tiny' });
    expect((await send(a, auth, 'orders', 1000)).status).toBe(200);
    expect((await send(b, auth, 'orders', 100)).body).toEqual(STORAGE_403);

    const patch = await a.http
      .patch('/v1/admin/accounts/acme')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ plan: 'roomy' });
    expect(patch.status).toBe(200);
    expect(patch.body.result).toEqual({
      id: 'acme',
      plan: 'roomy',
      usage: { storage_bytes: 1000, channels: 1 },
    });
    expect((await send(b, auth, 'orders', 900)).status).toBe(200);
    for (const ch of ['c2', 'c3', 'c4', 'c5']) {
      expect((await send(a, auth, ch, 4)).status).toBe(200);
    }
    expect(await usage()).toEqual({ storage_bytes: 1916, channels: 5 });

    // Downgrade below current usage: nothing is deleted, but nothing new fits.
    const down = await b.http
      .patch('/v1/admin/accounts/acme')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ plan: 'tiny' });
    expect(down.body.result.plan).toBe('tiny');
    expect((await send(a, auth, 'orders', 10)).body).toEqual(STORAGE_403);
    expect((await send(b, auth, 'c6', 4)).body).toEqual(CHANNEL_403(3));
    expect(await usage()).toEqual({ storage_bytes: 1916, channels: 5 });
  });
});
