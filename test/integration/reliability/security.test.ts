/**
 * Security: tenant isolation as a matrix (a token of account A against every
 * resource of account B, B's state compared before and after), scoped,
 * expired, revoked and malformed tokens, the admin API's gate, and per-token
 * rate limiting (429 with Retry-After, other tenants unaffected).
 */
import request from 'supertest';
import { buildApp } from '../../../src/app';
import { hashSecret } from '../../../src/auth/tokens';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { createRedis } from '../../../src/store/redis';
import {
  ADMIN_TOKEN,
  accountWithToken,
  eventually,
  sleep,
  startApp,
  type TestApp,
} from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { refusedUpgrade, subscribe } from '../../helpers/ws';

jest.setTimeout(30_000);

const rq = useRelay({ listen: true });
let client: ReturnType<typeof request>;
beforeAll(() => {
  client = request(rq.app.baseUrl);
});

const err = (status: number, message: string) => ({
  success: false,
  errors: [{ code: status, message }],
  messages: [],
  result: null,
});

/** Every key of one account with its content, by type. */
async function accountState(account: string): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  await rq.redis.eachMaster(async (node) => {
    for (const key of (await node.keys(`rq:{${account}}:*`)).sort()) {
      const type = await node.type(key);
      if (type === 'hash') state[key] = await node.hgetall(key);
      else if (type === 'zset') state[key] = await node.zrange(key, 0, -1, 'WITHSCORES');
      else if (type === 'set') state[key] = (await node.smembers(key)).sort();
      else if (type === 'string') state[key] = await node.get(key);
      else state[key] = type;
    }
  });
  return state;
}

const mb = (channel: string) => `/v1/relay/channels/${channel}/messages`;

describe('tenant isolation: a token of account A against everything of account B', () => {
  test('no request with A’s token reads or changes anything of B', async () => {
    const a = await accountWithToken(rq.app, 'alpha', { plan: 'paid' });
    const b = await accountWithToken(rq.app, 'bravo', { plan: 'paid' });
    // B's state: queued, delayed and in-flight messages, a configured channel, a dead letter.
    await client
      .post(`${mb('orders')}/batch`)
      .set('Authorization', b.auth)
      .send({ messages: [{ body: 'b1' }, { body: 'b2' }, { body: 'b3', delay_seconds: 3600 }] });
    await client
      .put('/v1/relay/channels/orders')
      .set('Authorization', b.auth)
      .send({ max_attempts: 7, dead_letter_channel: 'orders-dlq' });
    const bPull = await client
      .post(`${mb('orders')}/pull`)
      .set('Authorization', b.auth)
      .send({ batch_size: 1, visibility_timeout_ms: 3_600_000 });
    const bLease: string = bPull.body.result.messages[0].lease_id;
    const bIds: string[] = [bPull.body.result.messages[0].id];
    const bTokenId = b.tokenId;

    const socketA = await subscribe(rq.app, `${mb('orders')}/subscribe`, a.auth);
    const bBefore = await accountState('bravo');
    const h = a.auth;

    const matrix: [string, () => request.Test, number, unknown][] = [
      [
        'pull B’s channel',
        () =>
          client
            .post(`${mb('orders')}/pull`)
            .set('Authorization', h)
            .send({ batch_size: 100 }),
        200,
        { message_backlog_count: 0, messages: [] },
      ],
      [
        'ack with B’s real lease id',
        () =>
          client
            .post(`${mb('orders')}/ack`)
            .set('Authorization', h)
            .send({ lease_ids: [bLease] }),
        200,
        { acked_count: 0 },
      ],
      [
        'ack B’s lease as a retry',
        () =>
          client
            .post(`${mb('orders')}/ack`)
            .set('Authorization', h)
            .send({ retries: [{ lease_id: bLease }] }),
        200,
        { acked_count: 0, retried_count: 0 },
      ],
      [
        'extend B’s lease',
        () =>
          client
            .post(`${mb('orders')}/extend`)
            .set('Authorization', h)
            .send({ lease_ids: [bLease] }),
        200,
        { extended_count: 0 },
      ],
      [
        'list channels',
        () => client.get('/v1/relay/channels').set('Authorization', h),
        200,
        { channels: [] },
      ],
      [
        'get B’s channel',
        () => client.get('/v1/relay/channels/orders').set('Authorization', h),
        404,
        'channel orders does not exist',
      ],
      [
        'purge B’s channel',
        () =>
          client
            .post(`${mb('orders')}/purge`)
            .set('Authorization', h)
            .send({}),
        404,
        'channel orders does not exist',
      ],
      [
        'redrive B’s channel',
        () =>
          client
            .post(`${mb('orders')}/redrive`)
            .set('Authorization', h)
            .send({}),
        404,
        'channel orders does not exist',
      ],
      [
        'delete B’s channel',
        () => client.delete('/v1/relay/channels/orders').set('Authorization', h),
        404,
        'channel orders does not exist',
      ],
      [
        'read B’s account (admin API)',
        () => client.get('/v1/admin/accounts/bravo').set('Authorization', h),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'list B’s tokens',
        () => client.get('/v1/admin/accounts/bravo/tokens').set('Authorization', h),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'make a token for B',
        () => client.post('/v1/admin/accounts/bravo/tokens').set('Authorization', h).send({}),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'revoke B’s token',
        () => client.delete(`/v1/admin/accounts/bravo/tokens/${bTokenId}`).set('Authorization', h),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'change B’s plan',
        () =>
          client.patch('/v1/admin/accounts/bravo').set('Authorization', h).send({ plan: 'free' }),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'delete B’s account',
        () => client.delete('/v1/admin/accounts/bravo').set('Authorization', h),
        403,
        'the operator API needs the admin token; relay tokens may not use it',
      ],
      [
        'A’s token id and secret under B’s account id',
        () =>
          client
            .post(`${mb('orders')}/pull`)
            .set('Authorization', h.replace(/_alpha$/, '_bravo'))
            .send({}),
        401,
        'invalid or revoked token',
      ],
      [
        'B’s token id with A’s secret',
        () =>
          client
            .post(`${mb('orders')}/pull`)
            .set('Authorization', `Bearer rq_${bTokenId}${a.token.slice(19, 62)}_bravo`)
            .send({}),
        401,
        'invalid or revoked token',
      ],
      // Last: writes that land in A's own namespace, never in B's.
      [
        'configure a channel named like B’s',
        () =>
          client.put('/v1/relay/channels/orders').set('Authorization', h).send({ max_attempts: 2 }),
        200,
        null,
      ],
      [
        'send to a channel named like B’s',
        () => client.post(mb('orders')).set('Authorization', h).send({ body: 'from alpha' }),
        200,
        null,
      ],
    ];
    for (const [name, send, status, expected] of matrix) {
      const res = await send();
      expect({ name, status: res.status }).toEqual({ name, status });
      if (typeof expected === 'string') expect(res.body).toEqual(err(status, expected));
      else if (expected !== null) expect(res.body.result).toEqual(expected);
      expect({ name, b: await accountState('bravo') }).toEqual({ name, b: bBefore });
      expect(JSON.stringify(res.body)).not.toMatch(/"b[1-3]"|bravo/);
    }

    // A's own channel 'orders' holds only A's message; B's lease still acks B's message.
    const aPull = await client
      .post(`${mb('orders')}/pull`)
      .set('Authorization', h)
      .send({});
    expect(aPull.body.result.messages.map((m: { body: unknown }) => m.body)).toEqual([
      'from alpha',
    ]);
    // A's socket heard A's send, never B's.
    await socketA.waitFor((e) => e.type === 'new_message');
    socketA.events.length = 0;
    await client.post(mb('orders')).set('Authorization', b.auth).send({ body: 'b4' });
    await sleep(300);
    expect(socketA.events).toEqual([]);
    await socketA.close();
    const bAck = await client
      .post(`${mb('orders')}/ack`)
      .set('Authorization', b.auth)
      .send({ lease_ids: [bLease] });
    expect(bAck.body.result).toEqual({ acked_count: 1 });
    expect(bIds).toHaveLength(1);
  });
});

describe('tokens', () => {
  test('a scoped token may use only its channels, over HTTP and WebSocket', async () => {
    const scoped = await accountWithToken(rq.app, 'alpha', { channels: ['allowed'] });
    const full = await accountWithToken(rq.app, 'alpha');
    await client.post(mb('secret')).set('Authorization', full.auth).send({ body: 'hidden' });
    const forbidden = err(403, 'this token may not use channel secret');
    for (const send of [
      () => client.post(mb('secret')).set('Authorization', scoped.auth).send({ body: 1 }),
      () =>
        client
          .post(`${mb('secret')}/pull`)
          .set('Authorization', scoped.auth)
          .send({}),
      () =>
        client
          .post(`${mb('secret')}/ack`)
          .set('Authorization', scoped.auth)
          .send({ lease_ids: [] }),
      () => client.get('/v1/relay/channels/secret').set('Authorization', scoped.auth),
      () => client.delete('/v1/relay/channels/secret').set('Authorization', scoped.auth),
      () =>
        client
          .post(`${mb('allowed')}/redrive`)
          .set('Authorization', scoped.auth)
          .send({ to: 'secret' }),
      () =>
        client
          .put('/v1/relay/channels/allowed')
          .set('Authorization', scoped.auth)
          .send({ dead_letter_channel: 'secret' }),
    ]) {
      const res = await send();
      expect(res.status).toBe(403);
      expect(res.body).toEqual(forbidden);
    }
    const list = await client.get('/v1/relay/channels').set('Authorization', scoped.auth);
    expect(list.body.result.channels).toEqual([]);
    const single = await refusedUpgrade(rq.app, `${mb('secret')}/subscribe`, {
      Authorization: scoped.auth,
    });
    expect([single.status, single.body]).toEqual([403, forbidden]);
    const multi = await refusedUpgrade(rq.app, '/v1/relay/subscribe?channels=allowed,secret', {
      Authorization: scoped.auth,
    });
    expect([multi.status, multi.body]).toEqual([403, forbidden]);
    const ok = await client.post(mb('allowed')).set('Authorization', scoped.auth).send({ body: 1 });
    expect(ok.status).toBe(200);
  });

  test('an expired token is refused', async () => {
    const short = await accountWithToken(rq.app, 'alpha', { expires_in_seconds: 1 });
    expect((await client.get('/v1/relay/channels').set('Authorization', short.auth)).status).toBe(
      200,
    );
    await sleep(1100);
    const res = await client.get('/v1/relay/channels').set('Authorization', short.auth);
    expect([res.status, res.body]).toEqual([401, err(401, 'token has expired')]);
  });

  test('a revoked token is refused from the next request on, and its WebSockets are closed with 1008', async () => {
    const t = await accountWithToken(rq.app, 'alpha');
    const socket = await subscribe(rq.app, `${mb('orders')}/subscribe`, t.auth);
    const revoked = await client
      .delete(`/v1/admin/accounts/alpha/tokens/${t.tokenId}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(revoked.status).toBe(200);
    const res = await client.post(mb('orders')).set('Authorization', t.auth).send({ body: 1 });
    expect([res.status, res.body]).toEqual([401, err(401, 'invalid or revoked token')]);
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      socket.closed,
      new Promise((resolve) => (timer = setTimeout(() => resolve(null), 5000))),
    ]);
    clearTimeout(timer);
    expect(closed).toEqual({ code: 1008, reason: 'token revoked', at: expect.any(Number) });
  });

  test('malformed tokens and headers are a 401 naming the problem', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'missing Authorization header; send Authorization: Bearer <token>'],
      ['Basic abc', 'malformed Authorization header; expected Bearer <token>'],
      ['Bearer a b', 'malformed Authorization header; expected Bearer <token>'],
      ['Bearer not-a-token', 'invalid token'],
      [`Bearer rq_${'0'.repeat(16)}${'A'.repeat(43)}_alpha`, 'invalid or revoked token'],
      [`Bearer rq_${'0'.repeat(16)}${'A'.repeat(43)}_{alpha}`, 'invalid token'],
    ];
    for (const [header, message] of cases) {
      const req = client.get('/v1/relay/channels');
      if (header !== undefined) req.set('Authorization', header);
      const res = await req;
      expect([header, res.status, res.body]).toEqual([header, 401, err(401, message)]);
    }
  });
});

describe('admin API', () => {
  test('only the admin token opens it', async () => {
    const relay = await accountWithToken(rq.app, 'alpha');
    const get = () => client.get('/v1/admin/accounts/alpha');
    expect((await get()).body).toEqual(
      err(401, 'missing Authorization header; send Authorization: Bearer <token>'),
    );
    expect((await get().set('Authorization', 'Bearer wrong-admin-token-123456')).body).toEqual(
      err(401, 'invalid admin token'),
    );
    expect((await get().set('Authorization', `Bearer ${ADMIN_TOKEN}x`)).body).toEqual(
      err(401, 'invalid admin token'),
    );
    expect((await get().set('Authorization', relay.auth)).body).toEqual(
      err(403, 'the operator API needs the admin token; relay tokens may not use it'),
    );
    expect((await get().set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    // The admin token is not a relay token.
    const asRelay = await client
      .get('/v1/relay/channels')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect([asRelay.status, asRelay.body]).toEqual([401, err(401, 'invalid token')]);
  });

  test('with RELAY_ADMIN_TOKEN unset every admin path is a 404', async () => {
    const closed: TestApp = await startApp(rq.redis, { RELAY_ADMIN_TOKEN: '' });
    try {
      for (const [method, path] of [
        ['get', '/v1/admin/accounts/alpha'],
        ['post', '/v1/admin/accounts'],
        ['delete', '/v1/admin/accounts/alpha'],
        ['post', '/v1/admin/accounts/alpha/tokens'],
        ['get', '/v1/admin/accounts/alpha/tokens'],
      ] as const) {
        const res = await closed.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
        expect([path, res.status, res.body]).toEqual([
          path,
          404,
          err(404, `no such endpoint: ${method.toUpperCase()} ${path}`),
        ]);
      }
    } finally {
      await closed.close();
    }
  });
});

describe('rate limiting per account', () => {
  let limited: TestApp;
  let podX: TestApp;
  let podY: TestApp;
  beforeAll(async () => {
    limited = await startApp(rq.redis, {
      RELAY_RATE_LIMIT_PER_SECOND: '5',
      RELAY_RATE_LIMIT_BURST: '5',
    });
    // 6 requests per 6 s window: long enough that the test's requests share one window.
    const slow = { RELAY_RATE_LIMIT_PER_SECOND: '1', RELAY_RATE_LIMIT_BURST: '6' };
    podX = await startApp(rq.redis, slow);
    podY = await startApp(rq.redis, slow);
  });
  afterAll(async () => {
    await limited.close();
    await podX.close();
    await podY.close();
  });
  /** The account's queue state, without the rate counters. */
  const queueState = async (account: string) =>
    Object.fromEntries(
      Object.entries(await accountState(account)).filter(([key]) => !key.includes(':rate:')),
    );

  test('over the rate: 429 with Retry-After, nothing stored; other accounts are not affected; the window ends', async () => {
    const noisy = await accountWithToken(limited, 'noisy');
    const quiet = await accountWithToken(limited, 'quiet');
    let ok = 0;
    let refused: request.Response | null = null;
    // Bursts of 5 per 1 s window: at most 5 of these pass, wherever the window starts.
    for (let i = 0; i < 6; i++) {
      const res = await limited.http
        .post(mb('q'))
        .set('Authorization', noisy.auth)
        .send({ body: i });
      if (res.status === 200) ok++;
      else refused = res;
    }
    expect(ok).toBeLessThanOrEqual(5);
    expect(refused).not.toBeNull();
    expect(refused!.status).toBe(429);
    expect(refused!.headers['retry-after']).toBe('1');
    expect(refused!.body).toEqual(
      err(
        429,
        'rate limit exceeded: this account may make 5 requests per second in bursts of 5 (rate_limit_per_second 5, rate_limit_burst 5); retry after 1 s',
      ),
    );
    // the accepted sends may have left a coalesced new_message pending: let the pod's own
    // timer publish it first, so that the snapshot compares only what the refusals could change
    await eventually(async () => {
      const account = (await queueState('noisy'))['rq:{noisy}:account'] as Record<string, string>;
      return !Object.entries(account).some(([f, v]) => f.startsWith('n:') && v.endsWith('|1'));
    }, 5000);
    const before = await queueState('noisy');
    const again = await limited.http
      .post(mb('q'))
      .set('Authorization', noisy.auth)
      .send({ body: 'x' });
    const list = await limited.http.get('/v1/relay/channels').set('Authorization', noisy.auth);
    expect([again.status, list.status]).toEqual([429, 429]);
    const after = await queueState('noisy');
    // the window's counter may have expired meanwhile (time, not the refusals): otherwise
    // the refusals did not count
    if (after['rq:{noisy}:rate'] === 'none') delete before['rq:{noisy}:rate'];
    if (after['rq:{noisy}:rate'] === 'none') delete after['rq:{noisy}:rate'];
    expect(after).toEqual(before);
    // Another tenant is served at once.
    const other = await limited.http
      .post(mb('q'))
      .set('Authorization', quiet.auth)
      .send({ body: 'q' });
    expect(other.status).toBe(200);
    await eventually(
      async () =>
        (await limited.http.post(mb('q')).set('Authorization', noisy.auth).send({ body: 'later' }))
          .status === 200,
      3000,
      250,
    );
  });

  test('the limit holds across pods: an account cannot double its rate by spreading requests', async () => {
    const t = await accountWithToken(podX, 'spread');
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 8; i++) {
      const pod = i % 2 === 0 ? podX : podY;
      statuses.push((await pod.http.get('/v1/relay/channels').set('Authorization', t.auth)).status);
    }
    // One window (it starts at the first request): 6 pass in all, not 6 on each pod.
    if (Date.now() - started < 6000) {
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    }
  });

  test('rate limiting is off by default', async () => {
    const t = await accountWithToken(rq.app, 'alpha');
    for (let i = 0; i < 30; i++) {
      expect((await client.get('/v1/relay/channels').set('Authorization', t.auth)).status).toBe(
        200,
      );
    }
    expect(await rq.redis.keys('rq:*:rate:*')).toEqual([]);
  });
});

describe('secrets never in logs', () => {
  test('tokens, secrets, hashes, lease ids and bodies appear in no log line, at the most verbose level', async () => {
    const lines: string[] = [];
    const logger = createLogger('trace', { write: (line: string) => lines.push(line) });
    const config = loadConfig({
      ...rq.redis.env,
      RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'trace',
    });
    const redisClient = createRedis(config.redis);
    const relay = buildApp({ config, redis: redisClient, logger });
    await relay.start();
    try {
      const http = request(relay.app);
      const admin = `Bearer ${ADMIN_TOKEN}`;
      await http
        .post('/v1/admin/accounts')
        .set('Authorization', admin)
        .send({ id: 'logged', plan: 'free' });
      const issued = await http
        .post('/v1/admin/accounts/logged/tokens')
        .set('Authorization', admin)
        .send({ name: 'NAME-MARKER-5c1d', channels: ['logs'] });
      expect(issued.status).toBe(200);
      const token: string = issued.body.result.token;
      const auth = `Bearer ${token}`;
      const body = {
        body: { secret: 'BODY-MARKER-7f3a' },
        metadata: { m: 'META-MARKER-91b2' },
        dedup_id: 'DEDUP-MARKER-0e77',
      };
      expect(
        (
          await http
            .post(mb('logs'))
            .set('Authorization', auth)
            .set('X-Request-Id', 'req-1')
            .send(body)
        ).status,
      ).toBe(200);
      const pulled = await http
        .post(`${mb('logs')}/pull`)
        .set('Authorization', auth)
        .send({});
      const lease: string = pulled.body.result.messages[0].lease_id;
      await http
        .post(`${mb('logs')}/ack`)
        .set('Authorization', auth)
        .send({ lease_ids: [lease] });
      // Refusals that carry secrets in odd places.
      await http.post(mb('logs')).set('Authorization', `${auth} extra`).send(body);
      await http.post(mb('logs')).set('Authorization', `Bearer ${token}x`).send(body);
      await http
        .get('/v1/admin/accounts/logged')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}-wrong`);
      await http.post(mb('logs')).set('Authorization', auth).send('{"body":"BODY-MARKER-7f3a"');
      await http
        .post(mb('logs'))
        .set('Authorization', auth)
        .send({ ...body, 'FIELD-MARKER': 1 });
      await http.post(mb('other')).set('Authorization', auth).send(body);
      await http.get('/v1/admin/accounts/logged/tokens').set('Authorization', admin);
      await http
        .delete(`/v1/admin/accounts/logged/tokens/${issued.body.result.id}`)
        .set('Authorization', admin);
      await http.post(mb('logs')).set('Authorization', auth).send(body);

      const text = lines.join('');
      expect(lines.length).toBeGreaterThanOrEqual(10); // every request was logged
      expect(text).toContain('"reqId":"req-1"');
      const secret = token.slice(19, 62);
      for (const forbiddenText of [
        token,
        secret,
        hashSecret(secret),
        ADMIN_TOKEN,
        lease,
        'BODY-MARKER',
        'META-MARKER',
        'DEDUP-MARKER',
        'Bearer',
      ]) {
        expect({ forbiddenText, found: text.includes(forbiddenText) }).toEqual({
          forbiddenText,
          found: false,
        });
      }
    } finally {
      await relay.close();
      redisClient.disconnect();
    }
  });
});
