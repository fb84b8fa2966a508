/**
 * The due index heals by itself: with every service-wide key gone (the due
 * index partitions, their owners, the set of all accounts), delayed messages
 * are still announced and leases still end; a pod that dies between a send
 * and its index update loses no due time, and its client got no error.
 */
import { accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, newMessage, subscribe } from '../../helpers/ws';
import { duePartitionKeys } from '../../../src/store/keys';

const rq = useRelay({ listen: true, env: { RELAY_DUE_REPAIR_PASS_MS: '2000' } });
afterEach(async () => {
  rq.app.relay.context.beforeDueIndexUpdate = null;
  await closeClients();
});

const path = (channel: string) => `/v1/relay/channels/${channel}/messages/subscribe`;

async function post(auth: string, url: string, body: object) {
  const res = await rq.app.http.post(url).set('Authorization', auth).send(body);
  expect(res.status).toBe(200);
  return res.body.result;
}

/** Deletes every key under a service-wide hash tag ({~...}) on every master. */
async function deleteServiceWideKeys(): Promise<number> {
  const deleted = await rq.redis.eachMaster(async (node) => {
    const keys = await node.keys('rq:{~*');
    for (const key of keys) await node.del(key);
    return keys.length;
  });
  return deleted.reduce((a, b) => a + b, 0);
}

async function indexEntry(account: string): Promise<string | null> {
  const due = duePartitionKeys(rq.app.relay.context.duePartitionOf(account)).due;
  return rq.app.redis.zscore(due, account);
}

test('with every service-wide key deleted, delays are still announced and leases still end', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  const sub = await subscribe(rq.app, path('later'), auth);
  const leases = await subscribe(rq.app, path('work'), auth);

  await post(auth, '/v1/relay/channels/work/messages', { body: 'w' });
  await leases.waitFor(newMessage('work'));
  const pulled = await post(auth, '/v1/relay/channels/work/messages/pull', {
    visibility_timeout_ms: 2000,
  });
  expect(pulled.messages).toHaveLength(1);
  await post(auth, '/v1/relay/channels/later/messages', { body: 'l', delay_seconds: 2 });
  expect(await indexEntry('acme')).not.toBeNull();

  const eventsBefore = leases.events.length;
  expect(await deleteServiceWideKeys()).toBeGreaterThan(0);
  expect(await indexEntry('acme')).toBeNull();
  expect(await rq.app.redis.exists('rq:{~sys}:accounts')).toBe(0);

  // the delay's end is announced, and the lease's end makes the message available again
  await sub.waitFor(newMessage('later'), 20_000);
  await leases.waitFor(newMessage('work'), 20_000, eventsBefore);
  const again = await post(auth, '/v1/relay/channels/work/messages/pull', {});
  expect(again.messages).toHaveLength(1);
  expect(rq.app.relay.dueRepair.repaired).toBeGreaterThan(0);
}, 40_000);

test('a pod dying between a send and its index update loses no due time', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  const sub = await subscribe(rq.app, path('later'), auth);
  rq.app.relay.context.beforeDueIndexUpdate = async () => {
    throw new Error('the pod died here');
  };
  // the message is stored: the client is told so, not given an error
  const sent = await post(auth, '/v1/relay/channels/later/messages', {
    body: 'l',
    delay_seconds: 1,
  });
  expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(await indexEntry('acme')).toBeNull();
  rq.app.relay.context.beforeDueIndexUpdate = null;

  await sub.waitFor(newMessage('later'), 20_000);
  expect(rq.app.relay.dueRepair.repaired).toBeGreaterThan(0);
}, 40_000);
