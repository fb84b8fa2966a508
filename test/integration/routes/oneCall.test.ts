/**
 * A send to a channel with routes is still one Redis call once the pod knows the routes;
 * routes changed on another pod cost this pod one refused call and one read, then it is one
 * call again (docs/api/routes.md, "Routes changed while sending").
 */
import { accountWithToken, sleep, startApp, type TestApp } from '../../helpers/app';
import { podCommandArgs } from '../../helpers/monitor';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';

let redis: SingleTestRedis;
let a: TestApp;
let b: TestApp;
const env = {
  RELAY_SWEEP_INTERVAL_MS: '60000',
  RELAY_GAUGE_INTERVAL_MS: '60000',
  RELAY_DUE_REPAIR_PASS_MS: '60000',
};

beforeAll(async () => {
  redis = await startSingleRedis();
  a = await startApp(redis, env);
  b = await startApp(redis, env);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

/**
 * The commands the pod sent about channel `in` while run() ran (MONITOR on the server): its
 * background work (due repair, gauges) is about other keys and left out.
 */
async function podCommands(app: TestApp, run: () => Promise<unknown>): Promise<string[]> {
  return (await podCommandArgs(redis, app, run))
    .filter((c) => c.includes('in') || c.includes('v:in'))
    .map((c) => c[0]);
}

test('one call per routed send; a change made on another pod is picked up on the next send', async () => {
  const { auth } = await accountWithToken(a, 'onecall');
  // (after the new_message window: a coalesced announcement, a call of its own, never falls in)
  const send = async (body: unknown) => {
    await sleep(150);
    return a.http.post('/v1/relay/channels/in/messages').set('Authorization', auth).send({ body });
  };
  const routes = (to: string[]) =>
    b.http
      .put('/v1/relay/channels/in/routes')
      .set('Authorization', auth)
      .send({ routes: to.map((t) => ({ to: t, filter: { body: { n: { $gte: 0 } } } })) });
  // warm-up: the pod's first call of each script (ioredis may send it whole, as EVAL)
  const warm = await b.http
    .put('/v1/relay/channels/warm/routes')
    .set('Authorization', auth)
    .send({ routes: [{ to: 'x' }] });
  expect(warm.status).toBe(200);
  for (const ch of ['x', 'warm', 'warm']) {
    await a.http
      .post(`/v1/relay/channels/${ch}/messages`)
      .set('Authorization', auth)
      .send({ body: 0 });
  }
  expect((await routes(['x', 'y'])).status).toBe(200);
  // the first send on pod a: refused (it believed "no routes"), routes read, routed send
  const first = await podCommands(a, async () => {
    expect((await send({ n: 1 })).body.result.routed).toHaveLength(2);
  });
  expect(first).toEqual(['evalsha', 'hmget', 'evalsha']);
  const again = await podCommands(a, async () => {
    expect((await send({ n: 2 })).body.result.routed).toHaveLength(2);
  });
  expect(again).toEqual(['evalsha']);
  expect((await routes(['z'])).status).toBe(200);
  const changed = await podCommands(a, async () => {
    const res = await send({ n: 3 });
    expect(res.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual(['z']);
  });
  expect(changed).toEqual(['evalsha', 'hmget', 'evalsha']);
  const after = await podCommands(a, async () => {
    await send({ n: 4 });
  });
  expect(after).toEqual(['evalsha']);
});
