/**
 * Limits are per account and set by its plan: an owner who mints tokens and
 * spreads its requests, sockets and waits over two pods gets no more than its
 * plan allows. Each refusal is a 429 (403 for max_tokens) naming the limit.
 */
import { ADMIN_TOKEN, eventually, sleep, startApp } from '../../helpers/app';
import type { ListeningApp, TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, refusedUpgrade, subscribe, type Subscriber } from '../../helpers/ws';

const BASE = { max_storage_bytes: 10_000_000, max_channels: 10, retention_seconds: 3600 };
const PLANS = {
  // 8 requests per 8 s window: long enough that a test's requests share one window
  tight: { ...BASE, rate_limit_per_second: 1, rate_limit_burst: 8 },
  capped: { ...BASE, max_tokens: 3, max_websocket_connections: 3, max_long_polls: 2 },
};

const rq = useRelay({ pods: 2, listen: true, env: { RELAY_PLANS: JSON.stringify(PLANS) } });
let redis: TestRedis;
let podA: ListeningApp;
let podB: ListeningApp;
beforeAll(() => ({ redis, a: podA, b: podB } = rq));
afterEach(() => closeClients());

const envelope = (code: number, message: string) => ({
  success: false,
  errors: [{ code, message }],
  messages: [],
  result: null,
});

/** An account on the plan, with an owner token (bearer header value). */
async function owner(app: TestApp, account: string, plan: string): Promise<string> {
  await app.relay.store.accounts.create(account, plan);
  const issued = await app.relay.relay.tokens.issue(account, { role: 'owner' });
  return `Bearer ${issued.token}`;
}

/** Mints a relay token through the account API, as a hostile owner would. */
async function mint(app: TestApp, ownerAuth: string, body: object = {}) {
  return app.http.post('/v1/account/tokens').set('Authorization', ownerAuth).send(body);
}

const channels = (app: TestApp, auth: string) =>
  app.http.get('/v1/relay/channels').set('Authorization', auth);

test('minted tokens share the account rate across two pods; another account is not slowed', async () => {
  const ownerAuth = await owner(podA, 'noisy', 'tight');
  const tokens: string[] = [];
  for (let i = 0; i < 4; i++) {
    const issued = await podA.relay.relay.tokens.issue('noisy', {});
    tokens.push(`Bearer ${issued.token}`);
  }
  const quiet = await owner(podA, 'quiet', 'tight');
  const started = Date.now();
  const statuses: number[] = [];
  let refusal: { status: number; headers: Record<string, string>; body: unknown } | null = null;
  for (let i = 0; i < 16; i++) {
    const pod = i % 2 === 0 ? podA : podB;
    const res = await channels(pod, tokens[i % tokens.length]);
    statuses.push(res.status);
    if (res.status === 429) refusal = res;
  }
  // The window (8 s) outlasts the loop: 8 pass in all, not 8 per token or per pod.
  if (Date.now() - started < 8000) {
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(statuses.slice(8)).toEqual(Array(8).fill(429));
  }
  expect(refusal!.body).toEqual(
    envelope(
      429,
      `rate limit exceeded: this account may make 1 request per second in bursts of 8 (rate_limit_per_second 1, rate_limit_burst 8); retry after ${refusal!.headers['retry-after']} s`,
    ),
  );
  expect(Number(refusal!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // The account API counts toward the same limit: minting more tokens is refused too.
  expect((await mint(podB, ownerAuth)).status).toBe(429);
  expect((await podA.http.get('/v1/account').set('Authorization', ownerAuth)).status).toBe(429);
  // Another account on the same plan is served.
  expect((await channels(podB, quiet)).status).toBe(200);
});

test('a token may carry a lower rate of its own; the account’s other tokens keep theirs', async () => {
  const ownerAuth = await owner(podA, 'acme', 'capped');
  const slow = await mint(podA, ownerAuth, { name: 'slow', rate_limit_per_second: 2 });
  expect(slow.status).toBe(200);
  expect(slow.body.result.rate_limit_per_second).toBe(2);
  const slowAuth = `Bearer ${slow.body.result.token}`;
  // 2 per 1 s window, wherever it starts: of 3 requests in a row, the third is refused.
  expect((await channels(podA, slowAuth)).status).toBe(200);
  expect((await channels(podB, slowAuth)).status).toBe(200);
  const res = await channels(podA, slowAuth);
  expect(res.body).toEqual(
    envelope(
      429,
      'rate limit exceeded: this token may make 2 requests per second (its rate_limit_per_second); retry after 1 s',
    ),
  );
  expect(res.headers['retry-after']).toBe('1');
  for (let i = 0; i < 5; i++) expect((await channels(podB, ownerAuth)).status).toBe(200);
  const bad = await mint(podA, ownerAuth, { rate_limit_per_second: 0 });
  expect(bad.status).toBe(400);
});

test('max_tokens: the account API refuses past the plan (403), sessions do not count, revoking frees one', async () => {
  const ownerAuth = await owner(podA, 'acme', 'capped'); // token 1 of 3
  expect((await mint(podA, ownerAuth)).status).toBe(200);
  const third = await mint(podB, ownerAuth);
  expect(third.status).toBe(200);
  const refused = await mint(podA, ownerAuth);
  expect(refused.status).toBe(403);
  expect(refused.body).toEqual(
    envelope(
      403,
      'token limit reached: the plan allows at most 3 tokens per account (max_tokens); revoke one first',
    ),
  );
  const viaAdmin = await podB.http
    .post('/v1/admin/accounts/acme/tokens')
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({});
  expect(viaAdmin.status).toBe(403);
  // A dashboard sign-in is not a token of the plan's count.
  const session = await podA.http
    .post('/dashboard/api/session')
    .send({ token: ownerAuth.slice('Bearer '.length) });
  expect(session.status).toBe(200);
  const listed = await podA.http.get('/v1/account/tokens').set('Authorization', ownerAuth);
  expect(listed.body.result.tokens).toHaveLength(3);
  await podA.http
    .delete(`/v1/account/tokens/${third.body.result.id}`)
    .set('Authorization', ownerAuth)
    .expect(200);
  expect((await mint(podB, ownerAuth)).status).toBe(200);
});

const single = '/v1/relay/channels/orders/messages/subscribe';

test('max_websocket_connections holds for the account across pods and tokens; a closed one frees its place', async () => {
  const ownerAuth = await owner(podA, 'acme', 'capped');
  const other = `Bearer ${(await mint(podA, ownerAuth)).body.result.token}`;
  const open: Subscriber[] = [
    await subscribe(podA, single, ownerAuth),
    await subscribe(podA, single, ownerAuth),
    await subscribe(podB, single, other),
  ];
  const refused = await refusedUpgrade(podB, single, { Authorization: other });
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('5');
  expect(refused.body).toEqual(
    envelope(
      429,
      'WebSocket limit reached: this account may hold 3 open WebSocket connections (max_websocket_connections); retry after 5 s',
    ),
  );
  await open[0].close();
  await eventually(
    async () => {
      try {
        open.push(await subscribe(podB, single, other));
        return true;
      } catch {
        return false;
      }
    },
    3000,
    100,
  );
});

test('max_long_polls holds for the account across pods; a pull without wait_ms is still served', async () => {
  const ownerAuth = await owner(podA, 'acme', 'capped');
  const other = `Bearer ${(await mint(podA, ownerAuth)).body.result.token}`;
  const pull = (app: TestApp, auth: string, body: object) =>
    app.http.post('/v1/relay/channels/orders/messages/pull').set('Authorization', auth).send(body);
  const waiting = [pull(podA, ownerAuth, { wait_ms: 4000 }), pull(podB, other, { wait_ms: 4000 })];
  const settled = waiting.map((p) => p.then((r) => r));
  await eventually(async () => (await redis.keys('rq:{acme}:holders:lp')).length === 1, 2000);
  await sleep(200);
  const refused = await pull(podB, ownerAuth, { wait_ms: 4000 });
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('1');
  expect(refused.body).toEqual(
    envelope(
      429,
      'long-poll limit reached: this account may hold 2 long-poll waits at once (max_long_polls); retry after 1 s or pull without wait_ms',
    ),
  );
  expect((await pull(podA, other, {})).status).toBe(200);
  // A message ends one wait; its place is free again.
  await podA.http
    .post('/v1/relay/channels/orders/messages')
    .set('Authorization', ownerAuth)
    .send({ body: 'one' })
    .expect(200);
  const done = await Promise.race(settled);
  expect(done.body.result.messages).toHaveLength(1);
  const again = pull(podA, other, { wait_ms: 300 });
  expect((await again).status).toBe(200);
  await Promise.all(settled);
});

test('1,000 WebSockets on one token are allowed by default; the free plan caps the account there', async () => {
  await podA.relay.store.accounts.create('fleet', 'free');
  const auth = `Bearer ${(await podA.relay.relay.tokens.issue('fleet', {})).token}`;
  const open: Subscriber[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const pod = batch % 2 === 0 ? podA : podB;
    open.push(
      ...(await Promise.all(Array.from({ length: 100 }, () => subscribe(pod, single, auth)))),
    );
  }
  expect(open).toHaveLength(1000);
  const refused = await refusedUpgrade(podA, single, { Authorization: auth });
  expect(refused.status).toBe(429);
  expect((refused.body as { errors: { message: string }[] }).errors[0].message).toContain(
    '1000 open WebSocket connections (max_websocket_connections)',
  );
}, 60_000);

test('the operator API has its own limit (RELAY_ADMIN_RATE_LIMIT_PER_SECOND)', async () => {
  const app = await startApp(redis, { RELAY_ADMIN_RATE_LIMIT_PER_SECOND: '3' });
  try {
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const res = await app.http
        .get('/v1/admin/accounts/none')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body).toEqual(
          envelope(
            429,
            'rate limit exceeded: the operator API takes 3 requests per second on each server (RELAY_ADMIN_RATE_LIMIT_PER_SECOND); retry after 1 s',
          ),
        );
      }
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  } finally {
    await app.close();
  }
});
