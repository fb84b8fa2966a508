/**
 * On a real Redis Cluster (three masters): accounts whose hash tags live on
 * different shards both work end to end, events cross pods over sharded
 * pub/sub, the sweeper works across slots, and no command anywhere hits a
 * CROSSSLOT error.
 */
import WebSocket from 'ws';
import {
  accountWithToken,
  ADMIN_TOKEN,
  eventually,
  sleep,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import { masterOf, startCluster } from '../../helpers/cluster';
import type { TestRedis } from '../../helpers/redis';

let redis: TestRedis;
let podA: ListeningApp;
let podB: ListeningApp;
/** two account ids whose keys live on different masters */
let accounts: [string, string];

/** port of the master that owns the slot of `key` */
const ownerOf = (key: string) => masterOf(redis, key);

/** for each master (by port), the account ids whose keys it holds */
async function accountsPerMaster(): Promise<string[][]> {
  return redis.eachMaster(async (m) => {
    const keys = await m.keys('rq:{*}:*');
    return [...new Set(keys.map((k) => /^rq:\{([^}]+)\}/.exec(k)![1]))].filter((a) => a !== '~sys');
  });
}

function openSocket(
  app: ListeningApp,
  path: string,
  auth: string,
): Promise<{ ws: WebSocket; events: unknown[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}${path}`, {
    headers: { Authorization: auth },
  });
  const events: unknown[] = [];
  ws.on('message', (data) => events.push(JSON.parse(String(data))));
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade refused: ${res.statusCode}`)),
    );
    // the subscription is active once `subscribed` arrives
    ws.once('message', () => resolve({ ws, events }));
  });
}

function closeSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
  });
}

beforeAll(async () => {
  redis = await startCluster();
  podA = await startListeningApp(redis);
  podB = await startListeningApp(redis);
  const first = 'acme';
  const firstOwner = await ownerOf(`rq:{${first}}:account`);
  for (let i = 0; ; i++) {
    const candidate = `globex-${i}`;
    if ((await ownerOf(`rq:{${candidate}}:account`)) !== firstOwner) {
      accounts = [first, candidate];
      break;
    }
  }
});

afterAll(async () => {
  await podA?.close();
  await podB?.close();
  await redis?.stop();
});

test('the test topology is a three-master cluster in cluster_state:ok', async () => {
  expect(redis.topology).toBe('cluster');
  const infos = await redis.eachMaster(async (m) => String(await m.call('CLUSTER', 'INFO')));
  expect(infos).toHaveLength(3);
  for (const info of infos) expect(info).toContain('cluster_state:ok');
});

test('two accounts on different shards both send, pull, ack and list channels', async () => {
  for (const account of accounts) {
    const { auth } = await accountWithToken(podA, account);
    const one = await podA.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', auth)
      .send({ body: { account } });
    expect(one.status).toBe(200);
    const batch = await podB.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', auth)
      .send({ messages: [{ body: 1 }, { body: 2, delay_seconds: 0 }] });
    expect(batch.status).toBe(200);
    expect(batch.body.result.ids).toHaveLength(2);

    const pulled = await podB.http
      .post('/v1/relay/channels/orders/messages/pull')
      .set('Authorization', auth)
      .send({ batch_size: 10 });
    expect(pulled.status).toBe(200);
    expect(pulled.body.result.messages.map((m: { id: string }) => m.id)).toEqual([
      one.body.result.id,
      ...batch.body.result.ids,
    ]);
    expect(pulled.body.result.message_backlog_count).toBe(3);

    const list = await podA.http.get('/v1/relay/channels').set('Authorization', auth);
    expect(list.status).toBe(200);
    expect(list.body.result.channels).toEqual([
      expect.objectContaining({ id: 'orders', queued: 0, delayed: 0, in_flight: 3 }),
    ]);

    const acked = await podA.http
      .post('/v1/relay/channels/orders/messages/ack')
      .set('Authorization', auth)
      .send({
        lease_ids: pulled.body.result.messages.map((m: { lease_id: string }) => m.lease_id),
      });
    expect(acked.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { acked_count: 3 },
    });

    const after = await podB.http.get('/v1/relay/channels/orders').set('Authorization', auth);
    expect(after.status).toBe(200);
    expect(after.body.result).toMatchObject({
      id: 'orders',
      queued: 0,
      in_flight: 0,
      storage_bytes: 0,
    });
  }
  // each account's keys sit on exactly one master, and not the same one
  const perMaster = await accountsPerMaster();
  const holders = accounts.map((a) => perMaster.findIndex((list) => list.includes(a)));
  expect(holders.every((h) => h >= 0)).toBe(true);
  expect(holders[0]).not.toBe(holders[1]);
  for (const account of accounts) {
    expect(perMaster.filter((list) => list.includes(account))).toHaveLength(1);
  }
});

test('a WebSocket on one pod hears sends made on the other, for accounts on both shards', async () => {
  const sockets = [];
  for (const account of accounts) {
    const { auth } = await accountWithToken(podA, account);
    const socket = await openSocket(podA, '/v1/relay/subscribe?channels=alerts,orders', auth);
    sockets.push({ account, auth, ...socket });
  }
  try {
    for (const { auth } of sockets) {
      const sent = await podB.http
        .post('/v1/relay/channels/alerts/messages')
        .set('Authorization', auth)
        .send({ body: 'x' });
      expect(sent.status).toBe(200);
    }
    for (const { events } of sockets) {
      // (the previous test's sends to orders may still be announced, coalesced, just after it)
      const alerts = () =>
        events.filter((e) => (e as { channelId?: string }).channelId !== 'orders');
      await eventually(() => alerts().length >= 2);
      expect(alerts()).toEqual([
        { type: 'subscribed', channels: ['alerts', 'orders'] },
        { type: 'new_message', channelId: 'alerts' },
      ]);
    }
  } finally {
    await Promise.all(sockets.map((s) => closeSocket(s.ws)));
  }
});

test('a long poll on one pod wakes on a send from the other', async () => {
  const { auth } = await accountWithToken(podA, accounts[1]);
  const started = Date.now();
  const poll = podA.http
    .post('/v1/relay/channels/poll/messages/pull')
    .set('Authorization', auth)
    .send({ wait_ms: 10_000 })
    .then((res) => res);
  await sleep(300);
  await podB.http
    .post('/v1/relay/channels/poll/messages')
    .set('Authorization', auth)
    .send({ body: 'wake' });
  const res = await poll;
  expect(res.status).toBe(200);
  expect(res.body.result.messages.map((m: { body: unknown }) => m.body)).toEqual(['wake']);
  expect(Date.now() - started).toBeLessThan(8_000);
});

test('the sweeper re-queues expired leases and dead-letters across slots, with an event', async () => {
  for (const account of accounts) {
    const { auth } = await accountWithToken(podA, account);
    const config = await podA.http
      .put('/v1/relay/channels/jobs')
      .set('Authorization', auth)
      .send({ max_attempts: 1, dead_letter_channel: 'jobs-dlq' });
    expect(config.status).toBe(200);
    await podA.http
      .post('/v1/relay/channels/jobs/messages')
      .set('Authorization', auth)
      .send({ body: 'j' });
    const socket = await openSocket(podB, '/v1/relay/channels/jobs-dlq/messages/subscribe', auth);
    try {
      const pulled = await podA.http
        .post('/v1/relay/channels/jobs/messages/pull')
        .set('Authorization', auth)
        .send({ visibility_timeout_ms: 1000 });
      expect(pulled.body.result.messages).toHaveLength(1);
      // the lease ends after 1 s; with max_attempts 1 the message moves to jobs-dlq
      await eventually(() => socket.events.length >= 2, 6000);
      expect(socket.events[1]).toEqual({ type: 'new_message', channelId: 'jobs-dlq' });
      const dlq = await podB.http
        .post('/v1/relay/channels/jobs-dlq/messages/pull')
        .set('Authorization', auth)
        .send({});
      expect(dlq.body.result.messages.map((m: { body: unknown }) => m.body)).toEqual(['j']);
    } finally {
      await closeSocket(socket.ws);
    }
  }
});

test('the service-wide gauges sum accounts on both shards, and a pause holds across pods', async () => {
  for (const account of accounts) {
    const { auth } = await accountWithToken(podA, account);
    await podB.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', auth)
      .send({ messages: [{ body: 1 }, { body: 2, delay_seconds: 600 }] });
    const paused = await podA.http
      .put('/v1/relay/channels/orders')
      .set('Authorization', auth)
      .send({ paused: true });
    expect(paused.body).toMatchObject({ errors: [], result: { config: { paused: true } } });
    const pulled = await podB.http
      .post('/v1/relay/channels/orders/messages/pull')
      .set('Authorization', auth)
      .send({});
    expect(pulled.body.result.messages).toEqual([]);
  }
  // Expected: the sum of every account's channel counts, read through the store.
  const expected = async () => {
    const ids = await podA.redis.smembers('rq:{~sys}:accounts');
    let queued = 0;
    let delayed = 0;
    for (const id of ids) {
      for (const c of await podA.relay.store.channels.list(id)) {
        queued += c.queued;
        delayed += c.delayed;
      }
    }
    return { queued, delayed };
  };
  await eventually(async () => {
    const want = await expected();
    const text = await podB.relay.metrics.registry.metrics();
    return (
      want.delayed >= 2 &&
      text.includes(`relayq_messages{state="queued"} ${want.queued}\n`) &&
      text.includes(`relayq_messages{state="delayed"} ${want.delayed}\n`)
    );
  }, 10_000);
  for (const account of accounts) {
    const { auth } = await accountWithToken(podA, account);
    await podA.http
      .put('/v1/relay/channels/orders')
      .set('Authorization', auth)
      .send({ paused: false });
  }
});

test('deleting an account removes every key it had on its shard and closes its sockets', async () => {
  const account = accounts[1];
  const { auth } = await accountWithToken(podA, account);
  const socket = await openSocket(podB, '/v1/relay/channels/orders/messages/subscribe', auth);
  const closed = new Promise<number>((resolve) => socket.ws.once('close', (code) => resolve(code)));
  const res = await podA.http
    .delete(`/v1/admin/accounts/${account}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(res.status).toBe(200);
  expect(await closed).toBe(1008);
  expect(await redis.keys(`rq:{${account}}:*`)).toEqual([]);
  expect(await redis.keys(`rq:{${accounts[0]}}:*`)).not.toEqual([]);
});

test('no master ever answered CROSSSLOT, and no script call failed', async () => {
  const stats = await redis.eachMaster(async (m) => String(await m.info('errorstats')));
  for (const s of stats) expect(s).not.toMatch(/CROSSSLOT/);
  for (const pod of [podA, podB]) {
    const text = await pod.relay.metrics.registry.getSingleMetricAsString(
      'relayq_redis_script_errors_total',
    );
    expect(text).not.toMatch(/^relayq_redis_script_errors_total\{/m);
  }
});
