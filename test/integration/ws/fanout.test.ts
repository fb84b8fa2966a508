/**
 * new_message fan-out across pods: two app instances over one Redis, a
 * subscriber on one hears sends handled by the other; one event per send
 * request and channel; multi-channel subscriptions; account isolation; one
 * Redis subscription per account and pod, dropped with the last subscriber;
 * a subscriber that left is out of its channels' index.
 */
import { accountWithToken, eventually, sleep, type ListeningApp } from '../../helpers/app';
import WebSocket from 'ws';
import { useRelay } from '../../helpers/useRelay';
import {
  closeClients,
  countEvents,
  newMessage,
  subscribe,
  type Subscriber,
} from '../../helpers/ws';

const rq = useRelay({
  pods: 2,
  listen: true,
  env: { RELAY_MAX_WS_CONNECTIONS_PER_TOKEN: '600' },
});
afterEach(() => closeClients());

const one = (path: string) => `/v1/relay/channels/${path}/messages/subscribe`;
/** Sum of SSUBSCRIBE subscribers of the account's event channel over every master. */
async function shardSubscribers(account: string): Promise<number> {
  const counts = await rq.redis.eachMaster(async (node) => {
    const reply = (await node.call('PUBSUB', 'SHARDNUMSUB', `rq:{${account}}:events`)) as [
      string,
      number,
    ];
    return Number(reply[1]);
  });
  return counts.reduce((a, b) => a + b, 0);
}

async function send(app: ListeningApp, auth: string, channel: string, body: unknown = 1) {
  const res = await app.http
    .post(`/v1/relay/channels/${channel}/messages`)
    .set('Authorization', auth)
    .send({ body });
  expect(res.status).toBe(200);
  return res;
}

test('a subscriber on pod B hears a send handled by pod A, and can pull the message', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const sub = await subscribe(rq.b, one('orders'), auth);
  expect(sub.hello).toEqual({ type: 'subscribed', channelId: 'orders', at: sub.hello.at });

  const sent = await send(rq.a, auth, 'orders', { n: 1 });
  const event = await sub.waitFor(newMessage('orders'));
  expect(event).toEqual({ type: 'new_message', channelId: 'orders', at: event.at });

  // The event is a notification only: the message is there to pull when it arrives.
  const pulled = await rq.b.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(pulled.body.result.messages.map((m: { id: string }) => m.id)).toEqual([
    sent.body.result.id,
  ]);
});

test('a subscriber on the sending pod hears it too, and both pods hear one event each', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const onA = await subscribe(rq.a, one('orders'), auth);
  const onB = await subscribe(rq.b, one('orders'), auth);
  await send(rq.b, auth, 'orders');
  await onA.waitFor(newMessage('orders'));
  await onB.waitFor(newMessage('orders'));
  await sleep(400);
  expect(onA.events).toHaveLength(1);
  expect(onB.events).toHaveLength(1);
});

test('when a subscriber leaves, the others on its channels still get one event each', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const left = await subscribe(rq.a, one('orders'), auth);
  const stays = await subscribe(rq.a, one('orders'), auth);
  const multi = await subscribe(rq.a, '/v1/relay/subscribe?channels=orders,alerts', auth);
  await left.close();
  await send(rq.b, auth, 'orders');
  await send(rq.b, auth, 'alerts');
  await stays.waitFor(newMessage('orders'));
  await multi.waitFor(newMessage('orders'));
  await multi.waitFor(newMessage('alerts'));
  await sleep(400);
  expect(stays.events).toHaveLength(1);
  expect(countEvents(multi.events, newMessage('orders'))).toBe(1);
  expect(countEvents(multi.events, newMessage('alerts'))).toBe(1);
  expect(rq.a.relay.events.subscribedAccounts()).toBe(1);
});

test('a batch send yields exactly one event', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const sub = await subscribe(rq.b, one('orders'), auth);
  const res = await rq.a.http
    .post('/v1/relay/channels/orders/messages/batch')
    .set('Authorization', auth)
    .send({ messages: [{ body: 1 }, { body: 2 }, { body: 3 }, { body: 4 }, { body: 5 }] });
  expect(res.status).toBe(200);
  expect(res.body.result.ids).toHaveLength(5);
  await sub.waitFor(newMessage('orders'));
  await sleep(600);
  expect(sub.events).toHaveLength(1);

  // Two separate sends are two requests: two events.
  await send(rq.a, auth, 'orders');
  await send(rq.a, auth, 'orders');
  await eventually(() => sub.events.length === 3);
  await sleep(400);
  expect(sub.events).toHaveLength(3);
});

test('multi-channel: subscribed lists the channels deduplicated in the order given; events name their channel', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme', { plan: 'paid' });
  const sub = await subscribe(rq.b, '/v1/relay/subscribe?channels=zeta,alpha,zeta,m.1,alpha', auth);
  expect(sub.hello).toEqual({
    type: 'subscribed',
    channels: ['zeta', 'alpha', 'm.1'],
    at: sub.hello.at,
  });

  await send(rq.a, auth, 'alpha');
  await sub.waitFor(newMessage('alpha'));
  await send(rq.a, auth, 'not-subscribed');
  await send(rq.a, auth, 'm.1');
  await sub.waitFor(newMessage('m.1'));
  await send(rq.a, auth, 'zeta');
  await sub.waitFor(newMessage('zeta'));
  await sleep(400);
  expect(sub.events.map((e) => [e.type, e.channelId])).toEqual([
    ['new_message', 'alpha'],
    ['new_message', 'm.1'],
    ['new_message', 'zeta'],
  ]);
});

test("no events for another account's channel of the same name", async () => {
  const acme = await accountWithToken(rq.a, 'acme');
  const beta = await accountWithToken(rq.a, 'beta');
  const acmeSub = await subscribe(rq.b, one('orders'), acme.auth);
  const betaSub = await subscribe(rq.a, '/v1/relay/subscribe?channels=orders', beta.auth);

  await send(rq.a, beta.auth, 'orders');
  await betaSub.waitFor(newMessage('orders'));
  await send(rq.b, acme.auth, 'other');
  await sleep(500);
  expect(acmeSub.events).toEqual([]);

  await send(rq.b, acme.auth, 'orders');
  await acmeSub.waitFor(newMessage('orders'));
  await sleep(300);
  expect(betaSub.events).toHaveLength(1);
  expect(acmeSub.events).toHaveLength(1);
});

test('a send made right after subscribed arrives is never missed (fresh Redis subscription each time)', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  for (let i = 0; i < 15; i++) {
    // No other subscriber of the account: each connection makes pod B subscribe anew,
    // right after the previous one made it unsubscribe.
    const sub = await subscribe(rq.b, one('orders'), auth);
    await send(rq.a, auth, 'orders', i);
    await sub.waitFor(newMessage('orders'), 3000);
    await sub.close();
  }
  // Two connecting at once share one pending Redis subscription; both must hear the send.
  const [x, y] = await Promise.all([
    subscribe(rq.b, one('orders'), auth),
    subscribe(rq.b, one('orders'), auth),
  ]);
  await send(rq.a, auth, 'orders');
  await x.waitFor(newMessage('orders'));
  await y.waitFor(newMessage('orders'));
});

test('each pod holds one Redis subscription per account and drops it when the last subscriber leaves', async () => {
  const acme = await accountWithToken(rq.a, 'acme', { plan: 'paid' });
  const beta = await accountWithToken(rq.a, 'beta');
  const subs = await Promise.all([
    subscribe(rq.a, one('orders'), acme.auth),
    subscribe(rq.a, one('alerts'), acme.auth),
    subscribe(rq.a, '/v1/relay/subscribe?channels=orders,alerts', acme.auth),
    subscribe(rq.b, one('orders'), acme.auth),
    subscribe(rq.b, one('orders'), beta.auth),
  ]);
  expect(rq.a.relay.events.subscribedAccounts()).toBe(1);
  expect(rq.b.relay.events.subscribedAccounts()).toBe(2);
  // One subscription per pod, not per WebSocket.
  expect(await shardSubscribers('acme')).toBe(2);
  expect(await shardSubscribers('beta')).toBe(1);

  await subs[0].close();
  await subs[1].close();
  await sleep(100);
  expect(rq.a.relay.events.subscribedAccounts()).toBe(1);
  expect(await shardSubscribers('acme')).toBe(2);

  await subs[2].close();
  await subs[3].close();
  // A client that vanishes without a close handshake counts as leaving too.
  subs[4].ws.terminate();
  await subs[4].closed;
  await eventually(
    () =>
      rq.a.relay.events.subscribedAccounts() === 0 && rq.b.relay.events.subscribedAccounts() === 0,
  );
  await eventually(async () => (await shardSubscribers('acme')) === 0);
  expect(await shardSubscribers('beta')).toBe(0);
  expect(rq.a.ws.clientCount()).toBe(0);
  expect(rq.b.ws.clientCount()).toBe(0);
});

test('500 concurrent subscribers on one pod are all notified; no subscription is left after they leave', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const subs: Subscriber[] = [];
  for (let i = 0; i < 500; i += 50) {
    subs.push(
      ...(await Promise.all(
        Array.from({ length: 50 }, () => subscribe(rq.b, one('orders'), auth)),
      )),
    );
  }
  expect(rq.b.ws.clientCount()).toBe(500);
  expect(rq.b.relay.events.subscribedAccounts()).toBe(1);
  expect(await shardSubscribers('acme')).toBe(1);

  await send(rq.a, auth, 'orders');
  await eventually(() => subs.every((s) => s.events.length === 1), 10_000);
  await sleep(300);
  expect(
    countEvents(
      subs.flatMap((s) => s.events),
      newMessage('orders'),
    ),
  ).toBe(500);

  await Promise.all(subs.map((s) => s.close()));
  await eventually(() => rq.b.relay.events.subscribedAccounts() === 0);
  await eventually(async () => (await shardSubscribers('acme')) === 0);
  expect(rq.b.ws.clientCount()).toBe(0);
});

// On Redis Cluster, ioredis re-creates a shard's subscriber connection without telling
// the client, so the pod cannot announce what it may have missed (docs/api/websocket.md).
const onSingleRedis = process.env.RELAYQ_TEST_TOPOLOGY === 'cluster' ? test.skip : test;

onSingleRedis(
  "a send while a pod's Redis subscription is reconnecting is still announced to its subscribers",
  async () => {
    const { auth } = await accountWithToken(rq.a, 'acme');
    const sub = await subscribe(rq.b, one('orders'), auth);
    const multi = await subscribe(rq.b, '/v1/relay/subscribe?channels=alerts,orders', auth);
    // Drop every pod's subscriber connection; the sends below happen before it is back.
    await rq.redis.eachMaster((node) => node.call('CLIENT', 'KILL', 'TYPE', 'pubsub'));
    await send(rq.a, auth, 'orders');
    await sub.waitFor(newMessage('orders'), 5000);
    await multi.waitFor(newMessage('orders'), 5000);
    // Every subscribed channel is announced: the pod cannot know which events it missed.
    await multi.waitFor(newMessage('alerts'), 5000);
    // After the reconnection, sends are heard again as usual.
    const before = sub.events.length;
    await send(rq.a, auth, 'orders');
    await sub.waitFor(newMessage('orders'), 5000, before);
  },
);

test('clients that vanish while their subscription is being set up leave no Redis subscription', async () => {
  const { auth } = await accountWithToken(rq.a, 'beta');
  const url = `${rq.b.baseUrl.replace(/^http/, 'ws')}${one('orders')}`;
  await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        new Promise<void>((resolve) => {
          const ws = new WebSocket(url, { headers: { Authorization: auth } });
          ws.on('error', () => undefined);
          // Gone right after the 101, before `subscribed`.
          ws.on('upgrade', () => ws.terminate());
          ws.on('close', () => resolve());
        }),
    ),
  );
  await eventually(() => rq.b.ws.clientCount() === 0);
  await eventually(() => rq.b.relay.events.subscribedAccounts() === 0);
  await eventually(async () => (await shardSubscribers('beta')) === 0);
});
