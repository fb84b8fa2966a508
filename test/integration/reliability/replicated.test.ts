/**
 * RELAY_DURABILITY=replicated against a real primary and replica: writes are
 * acknowledged once the replica has them; with the replica down a send is
 * answered 503 within the timeout (stored on the primary, not confirmed), and
 * a retry with the same dedup id after the replica is back stores it once.
 */
import Redis from 'ioredis';
import { accountWithToken, eventually, startApp, type TestApp } from '../../helpers/app';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';

let primary: SingleTestRedis;
let replica: SingleTestRedis;
let replicaClient: Redis;
let app: TestApp;

const TIMEOUT_MS = 1000;

beforeAll(async () => {
  primary = await startSingleRedis();
  replica = await startSingleRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
  replicaClient = replica.client;
  await eventually(
    async () => /master_link_status:up/.test(await replicaClient.info('replication')),
    10_000,
    50,
  );
  app = await startApp(primary, {
    RELAY_DURABILITY: 'replicated',
    RELAY_DURABILITY_REPLICAS: '1',
    RELAY_DURABILITY_TIMEOUT_MS: String(TIMEOUT_MS),
  });
}, 30_000);
afterAll(async () => {
  await app?.close();
  await replica?.stop();
  await primary?.stop();
});

const base = '/v1/relay/channels/orders/messages';

/** The message records the replica holds in a channel (fields named by a 12-hex-digit seq). */
async function replicaRecords(account: string): Promise<number> {
  const fields = await replicaClient.hkeys(`rq:{${account}}:c:orders:m`);
  return fields.filter((f) => /^[0-9a-f]{12}$/.test(f)).length;
}

test('sends and acks are acknowledged once the replica has them; concurrent ones share WAITs', async () => {
  const { auth } = await accountWithToken(app, 'acme');
  const waitsBefore = app.relay.context.replication.waitsSent;
  // The replica holds its acknowledgement for a moment, so that a WAIT is surely in
  // flight while the other sends are written: they must share the next one, however
  // fast or slow the machine is.
  await replica.pause();
  const pending = Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      app.http.post(base).set('Authorization', auth).send({ body: i }),
    ),
  );
  await new Promise((r) => setTimeout(r, 150));
  await replica.resume();
  const sends = await pending;
  expect(sends.map((r) => r.status)).toEqual(new Array(20).fill(200));
  // the replica already holds every acknowledged message
  expect(await replicaRecords('acme')).toBe(20);
  expect(app.relay.context.replication.waitsSent - waitsBefore).toBeLessThan(20);

  const pulled = await app.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 20 });
  const leaseIds = pulled.body.result.messages.map((m: { lease_id: string }) => m.lease_id);
  const acked = await app.http
    .post(`${base}/ack`)
    .set('Authorization', auth)
    .send({ lease_ids: leaseIds });
  expect(acked.status).toBe(200);
  expect(await replicaRecords('acme')).toBe(0);
});

test('with the replica down a send is a 503 within the timeout; the retry after it is back stores once', async () => {
  const { auth } = await accountWithToken(app, 'beta');
  await replica.pause();
  try {
    const started = Date.now();
    const refused = await app.http
      .post(base)
      .set('Authorization', auth)
      .send({ body: 'x', dedup_id: 'order-1' });
    const took = Date.now() - started;
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({
      success: false,
      errors: [
        {
          code: 503,
          message: `the write is stored on the primary but not confirmed by 1 replica(s) within ${TIMEOUT_MS} ms; retry it (with the same dedup_id for sends)`,
        },
      ],
      messages: [],
      result: null,
    });
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(took).toBeLessThan(TIMEOUT_MS + 1000);
  } finally {
    await replica.resume();
  }
  await eventually(
    async () => /master_link_status:up/.test(await replicaClient.info('replication')),
    15_000,
    100,
  );

  const retried = await app.http
    .post(base)
    .set('Authorization', auth)
    .send({ body: 'x', dedup_id: 'order-1' });
  expect(retried.status).toBe(200);
  const pulled = await app.http
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 10 });
  expect(pulled.body.result.messages.map((m: { id: string }) => m.id)).toEqual([
    retried.body.result.id,
  ]);
  expect(await replicaRecords('beta')).toBe(1);
}, 40_000);
