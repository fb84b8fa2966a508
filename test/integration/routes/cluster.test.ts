/**
 * Routes on a real Redis Cluster (three masters): every key a routed send touches (the
 * routes, the targets' queues) shares the account's slot, copies reach their channels, and
 * each target's subscribers get their own new_message.
 */
import WebSocket from 'ws';
import {
  accountWithToken,
  eventually,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import { startCluster } from '../../helpers/cluster';
import type { TestRedis } from '../../helpers/redis';

let redis: TestRedis;
let podA: ListeningApp;
let podB: ListeningApp;

beforeAll(async () => {
  redis = await startCluster();
  podA = await startListeningApp(redis);
  podB = await startListeningApp(redis);
});

afterAll(async () => {
  await podA?.close();
  await podB?.close();
  await redis?.stop();
});

test('routes set on one pod fan sends on another out, with new_message per target', async () => {
  for (const account of ['acme', 'globex', 'initech']) {
    const { auth } = await accountWithToken(podA, account);
    const set = await podA.http
      .put('/v1/relay/channels/in/routes')
      .set('Authorization', auth)
      .send({
        routes: [{ to: 'even', filter: { body: { n: { $in: [0, 2, 4] } } } }, { to: 'all' }],
        keep: true,
      });
    expect(set.status).toBe(200);
    const ws = new WebSocket(`ws://127.0.0.1:${podA.port}/v1/relay/subscribe?channels=even,all`, {
      headers: { Authorization: auth },
    });
    const events: { type: string; channelId?: string }[] = [];
    ws.on('message', (data) => events.push(JSON.parse(String(data))));
    await eventually(() => events.length > 0);

    const sent = await podB.http
      .post('/v1/relay/channels/in/messages')
      .set('Authorization', auth)
      .send({ body: { n: 2 } });
    expect(sent.status).toBe(200);
    expect(sent.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual([
      'in',
      'even',
      'all',
    ]);
    await eventually(() =>
      ['even', 'all'].every((c) =>
        events.some((e) => e.type === 'new_message' && e.channelId === c),
      ),
    );
    ws.close();
    for (const [channel, copy] of [
      ['in', 0],
      ['even', 1],
      ['all', 2],
    ] as const) {
      const pulled = await podA.http
        .post(`/v1/relay/channels/${channel}/messages/pull`)
        .set('Authorization', auth)
        .send({ batch_size: 10 });
      expect(pulled.body.result.messages.map((m: { id: string }) => m.id)).toEqual([
        sent.body.result.routed[copy].id,
      ]);
    }
  }
});
