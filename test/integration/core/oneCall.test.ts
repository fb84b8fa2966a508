/**
 * One Redis call per message request (issue 18; docs/design.md, "The request path"): a send,
 * a pull and an ack each cost the pod one command, the token checked and the request counted
 * inside it. Revocation, expiry and scope take effect on the next request through another
 * pod, the rate limits hold across pods, and a refused request changes no key.
 */
import { accountWithToken, ADMIN_TOKEN, sleep, startApp, type TestApp } from '../../helpers/app';
import { podCommands as monitored } from '../../helpers/monitor';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';

let redis: SingleTestRedis;
let a: TestApp;
let b: TestApp;
const admin = `Bearer ${ADMIN_TOKEN}`;
const env = {
  // no background work on the pods while commands are counted
  RELAY_SWEEP_INTERVAL_MS: '60000',
  RELAY_GAUGE_INTERVAL_MS: '60000',
  RELAY_DUE_REPAIR_PASS_MS: '60000',
  RELAY_REPLAY_TICK_MS: '60000',
  RELAY_PLANS: JSON.stringify({
    tight: {
      max_storage_bytes: 1_000_000,
      max_channels: 5,
      retention_seconds: 3600,
      rate_limit_per_second: 1,
      rate_limit_burst: 3,
    },
    // a window of 40 s: long enough not to end while a test looks at it
    slow: {
      max_storage_bytes: 1_000_000,
      max_channels: 5,
      retention_seconds: 3600,
      rate_limit_per_second: 1,
      rate_limit_burst: 40,
    },
  }),
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

const path = (channel: string, suffix = '') => `/v1/relay/channels/${channel}/messages${suffix}`;
const post = (app: TestApp, auth: string, url: string, body: object) =>
  app.http.post(url).set('Authorization', auth).send(body);

/** The commands the pod's connection sent while run() ran (MONITOR on the server). */
const podCommands = (app: TestApp, run: () => Promise<unknown>) => monitored(redis, app, run);

/** Every key of the account with its serialised value. */
async function snapshot(account: string): Promise<Map<string, string>> {
  const keys = (await redis.keys(`rq:{${account}}:*`)).sort();
  const out = new Map<string, string>();
  for (const key of keys) {
    const dump = await redis.client.dumpBuffer(key);
    out.set(key, dump ? dump.toString('base64') : '');
  }
  return out;
}

test('a send, a pull and an ack each cost the pod one Redis command', async () => {
  const { auth } = await accountWithToken(a, 'one-call', { plan: 'paid' });
  // warm up: the account's first timers lower the sweeper's due index (a second call, once),
  // and ioredis sends each script's source once per connection (EVAL, then EVALSHA)
  expect((await post(a, auth, path('c1'), { body: 0 })).status).toBe(200);
  const first = await post(a, auth, path('c1', '/pull'), {});
  const lease = first.body.result.messages[0].lease_id;
  expect((await post(a, auth, path('c1', '/ack'), { lease_ids: [lease] })).status).toBe(200);

  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(200);
  // past the fan-out window, the send announces its message itself (no coalesced call later)
  await sleep(200);
  const send = await podCommands(a, async () => {
    expect((await post(a, auth, path('c1'), { body: 2 })).status).toBe(200);
  });
  expect(send).toEqual(['evalsha']);

  let leases: string[] = [];
  const pull = await podCommands(a, async () => {
    const res = await post(a, auth, path('c1', '/pull'), { batch_size: 2 });
    expect(res.status).toBe(200);
    leases = res.body.result.messages.map((m: { lease_id: string }) => m.lease_id);
  });
  expect(pull).toEqual(['evalsha']);
  expect(leases).toHaveLength(2);

  const ack = await podCommands(a, async () => {
    const res = await post(a, auth, path('c1', '/ack'), { lease_ids: leases });
    expect(res.body.result).toEqual({ acked_count: 2 });
  });
  expect(ack).toEqual(['evalsha']);
});

test('a revocation on pod B refuses the token on pod A from its next request', async () => {
  const { auth, tokenId } = await accountWithToken(b, 'revoke-ab');
  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(200);
  const revoked = await b.http
    .delete(`/v1/admin/accounts/revoke-ab/tokens/${tokenId}`)
    .set('Authorization', admin);
  expect(revoked.status).toBe(200);
  for (const url of [path('c1'), path('c1', '/pull'), path('c1', '/ack')]) {
    const res = await post(a, auth, url, url.endsWith('ack') ? { lease_ids: [] } : { body: 1 });
    expect(res.status).toBe(401);
    expect(res.body.errors).toEqual([{ code: 401, message: 'invalid or revoked token' }]);
  }
});

test("an account deleted through pod B is refused on pod A's next request", async () => {
  const { auth } = await accountWithToken(b, 'delete-ab');
  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(200);
  expect(
    (await b.http.delete('/v1/admin/accounts/delete-ab').set('Authorization', admin)).status,
  ).toBe(200);
  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(401);
});

test('expiry (Redis clock) and scope hold on every pod', async () => {
  const { auth } = await accountWithToken(b, 'expiry-ab', {
    expires_in_seconds: 1,
    channels: ['c1'],
  });
  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(200);
  const scoped = await post(a, auth, path('c2'), { body: 1 });
  expect(scoped.status).toBe(403);
  expect(scoped.body.errors).toEqual([{ code: 403, message: 'this token may not use channel c2' }]);
  await sleep(1100);
  const expired = await post(a, auth, path('c1', '/pull'), {});
  expect(expired.status).toBe(401);
  expect(expired.body.errors).toEqual([{ code: 401, message: 'token has expired' }]);
});

test('the rate limit holds across pods, with Retry-After', async () => {
  const { auth } = await accountWithToken(a, 'rate-ab', { plan: 'tight' });
  const codes: number[] = [];
  for (const app of [a, b, a]) codes.push((await post(app, auth, path('c1'), { body: 1 })).status);
  expect(codes).toEqual([200, 200, 200]);
  const refused = await post(b, auth, path('c1', '/pull'), {});
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(refused.body.errors[0].message).toMatch(
    /^rate limit exceeded: this account may make 1 request per second in bursts of 3 \(rate_limit_per_second 1, rate_limit_burst 3\); retry after \d s$/,
  );
});

test('a refused request (401, 403, 429) changes no key of the account', async () => {
  const { auth } = await accountWithToken(a, 'refused', { plan: 'slow', channels: ['c1'] });
  const { auth: other, tokenId } = await accountWithToken(a, 'refused');
  expect((await post(a, auth, path('c1'), { body: 1 })).status).toBe(200);
  await b.http.delete(`/v1/admin/accounts/refused/tokens/${tokenId}`).set('Authorization', admin);
  // fill the rate window (40 in a burst; the first send counted one)
  for (let i = 0; i < 39; i++) {
    expect((await post(i % 2 ? a : b, auth, path('c1'), { body: i })).status).toBe(200);
  }

  // the sends' coalesced announcement (the fan-out window) goes out before the snapshot
  await sleep(300);
  const before = await snapshot('refused');
  const refusals: [TestApp, string, string, object, number][] = [
    [a, other, path('c1'), { body: 'x' }, 401],
    [b, other, path('c1', '/pull'), {}, 401],
    [a, auth, path('c2'), { body: 'x' }, 403],
    [b, auth, path('c2', '/pull'), {}, 403],
    [a, auth, path('c1'), { body: 'x' }, 429],
    [b, auth, path('c1', '/pull'), {}, 429],
    [a, auth, path('c1', '/ack'), { lease_ids: [] }, 429],
  ];
  for (const [app, token, url, body, status] of refusals) {
    expect((await post(app, token, url, body)).status).toBe(status);
  }
  expect(await snapshot('refused')).toEqual(before);
});
