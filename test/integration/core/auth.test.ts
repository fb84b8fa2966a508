/** Authentication (docs/api/auth.md), account isolation, the operator API and channel ids. */
import { ADMIN_TOKEN, accountWithToken, startApp, type TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { expectError, path, relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay();
let redis: TestRedis;
let app: TestApp;
beforeAll(() => ({ redis, app } = rq));

const admin = `Bearer ${ADMIN_TOKEN}`;
const MISSING = 'missing Authorization header; send Authorization: Bearer <token>';
const MALFORMED = 'malformed Authorization header; expected Bearer <token>';

describe('bearer tokens', () => {
  const endpoints: [string, object][] = [
    [path('orders'), { body: 1 }],
    [path('orders', '/batch'), { messages: [{ body: 1 }] }],
    [path('orders', '/pull'), {}],
    [path('orders', '/ack'), { lease_ids: [] }],
  ];

  test.each(endpoints)('%s: missing header is a 401', async (url, body) => {
    expectError(await app.http.post(url).send(body), 401, MISSING);
  });
  test.each([['Basic x'], ['Bearer'], ['Bearer '], ['Token abc'], ['Bearer a b']])(
    'malformed header %j is a 401',
    async (header) => {
      expectError(
        await app.http.post(path('orders')).set('Authorization', header).send({ body: 1 }),
        401,
        MALFORMED,
      );
    },
  );
  test('a token of the wrong shape is a 401', async () => {
    expectError(
      await app.http.post(path('orders')).set('Authorization', 'Bearer nope').send({ body: 1 }),
      401,
      'invalid token',
    );
  });
  test('a well-formed but unknown token is a 401, and so is a wrong secret', async () => {
    const { token } = await accountWithToken(app, 'acme');
    const last = token.indexOf('_acme') - 1;
    const wrongSecret =
      token.slice(0, last) + (token[last] === 'A' ? 'B' : 'A') + token.slice(last + 1);
    const wrongId = token.slice(0, 3) + (token[3] === 'a' ? 'b' : 'a') + token.slice(4);
    for (const t of [wrongSecret, wrongId, token.replace('_acme', '_globex')]) {
      expectError(
        await app.http.post(path('orders')).set('Authorization', `Bearer ${t}`).send({ body: 1 }),
        401,
        'invalid or revoked token',
      );
    }
  });
  test('the scheme is case-insensitive, the token is not', async () => {
    const { token } = await accountWithToken(app, 'acme');
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await app.http
        .post(path('orders'))
        .set('Authorization', `${scheme} ${token}`)
        .send({ body: scheme });
      expect(res.status).toBe(200);
    }
    expect(
      (
        await app.http
          .post(path('orders'))
          .set('Authorization', `Bearer ${token.toUpperCase()}`)
          .send({ body: 1 })
      ).status,
    ).toBe(401);
  });
  test('a revoked token (admin DELETE) is a 401 from the next request on', async () => {
    const { auth, tokenId } = await accountWithToken(app, 'acme');
    const other = await accountWithToken(app, 'acme');
    expect((await relay(app, auth).send('orders', { body: 1 })).status).toBe(200);
    const revoked = await app.http
      .delete(`/v1/admin/accounts/acme/tokens/${tokenId}`)
      .set('Authorization', admin);
    expect(revoked.status).toBe(200);
    expect(revoked.body.result).toEqual({ id: tokenId, revoked: true });
    expectError(
      await relay(app, auth).send('orders', { body: 2 }),
      401,
      'invalid or revoked token',
    );
    expectError(await relay(app, auth).pull('orders'), 401, 'invalid or revoked token');
    // the account's other token still works
    expect((await relay(app, other.auth).pullOk('orders')).messages).toHaveLength(1);
  });
  test('an expired token is a 401', async () => {
    const { auth } = await accountWithToken(app, 'acme', { expires_in_seconds: 1 });
    expect((await relay(app, auth).pull('orders')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expectError(await relay(app, auth).pull('orders'), 401, 'token has expired');
  });
  test('tokens are stored hashed: the secret is not in Redis', async () => {
    const { token } = await accountWithToken(app, 'acme');
    const secret = token.slice(3 + 16, 3 + 16 + 43);
    const dump = JSON.stringify(await app.redis.hgetall('rq:{acme}:tokens'));
    expect(dump).not.toContain(secret);
  });
});

describe('account isolation', () => {
  test('two accounts on the same channel name never see each other', async () => {
    const a = relay(app, (await accountWithToken(app, 'acme')).auth);
    const b = relay(app, (await accountWithToken(app, 'globex')).auth);
    await a.sendOk('orders', { body: 'for acme' });
    await b.sendOk('orders', { body: 'for globex' });
    const pulledB = await b.pullOk('orders', { visibility_timeout_ms: 60_000 });
    expect(pulledB.messages.map((m) => m.body)).toEqual(['for globex']);
    expect(pulledB.message_backlog_count).toBe(1);
    // b cannot ack a's message even with a's lease
    const pulledA = await a.pullOk('orders', { visibility_timeout_ms: 60_000 });
    expect(pulledA.messages.map((m) => m.body)).toEqual(['for acme']);
    expect(await b.ackOk('orders', [pulledA.messages[0].lease_id])).toBe(0);
    expect(await a.ackOk('orders', [pulledA.messages[0].lease_id])).toBe(1);
    expect((await b.pullOk('orders')).message_backlog_count).toBe(1);
  });
  test('a channel-scoped token gets 403 on other channels', async () => {
    const { auth } = await accountWithToken(app, 'acme', { channels: ['orders'] });
    expect((await relay(app, auth).send('orders', { body: 1 })).status).toBe(200);
    expectError(
      await relay(app, auth).send('alerts', { body: 1 }),
      403,
      'this token may not use channel alerts',
    );
  });
});

describe('operator API', () => {
  test('create an account, 409 on a duplicate', async () => {
    const res = await app.http
      .post('/v1/admin/accounts')
      .set('Authorization', admin)
      .send({ id: 'acme', plan: 'free' });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ id: 'acme', plan: 'free' });
    expectError(
      await app.http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: 'acme' }),
      409,
      'account acme already exists',
    );
  });
  test('account ids follow the channel id rule; plans must exist', async () => {
    expectError(
      await app.http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: '.x' }),
      400,
      'id must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot',
    );
    expectError(
      await app.http
        .post('/v1/admin/accounts')
        .set('Authorization', admin)
        .send({ id: 'x', plan: 'gold' }),
      400,
      'plan must be one of free, paid',
    );
  });
  test('create a token (secret shown once), use it, revoke it', async () => {
    await app.http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: 'acme' });
    const created = await app.http
      .post('/v1/admin/accounts/acme/tokens')
      .set('Authorization', admin)
      .send({ name: 'laptop' });
    expect(created.status).toBe(200);
    const { id, token, name, channels, expires_ms } = created.body.result;
    expect([name, channels, expires_ms]).toEqual(['laptop', null, null]);
    expect((await relay(app, `Bearer ${token}`).send('orders', { body: 1 })).status).toBe(200);
    const listed = await app.http.get('/v1/admin/accounts/acme/tokens').set('Authorization', admin);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body.result.tokens.map((t: { id: string }) => t.id)).toEqual([id]);
    await app.http.delete(`/v1/admin/accounts/acme/tokens/${id}`).set('Authorization', admin);
    expectError(
      await relay(app, `Bearer ${token}`).send('orders', { body: 1 }),
      401,
      'invalid or revoked token',
    );
  });
  test('unknown account or token: 404', async () => {
    expectError(
      await app.http.post('/v1/admin/accounts/ghost/tokens').set('Authorization', admin).send({}),
      404,
      'account ghost does not exist',
    );
    await app.http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: 'acme' });
    expectError(
      await app.http
        .delete('/v1/admin/accounts/acme/tokens/0123456789abcdef')
        .set('Authorization', admin),
      404,
      'token 0123456789abcdef does not exist in account acme',
    );
  });
  test('a relay token on the admin API is a 403; no or a wrong admin token is a 401', async () => {
    const { auth } = await accountWithToken(app, 'acme');
    expectError(
      await app.http.post('/v1/admin/accounts').set('Authorization', auth).send({ id: 'x' }),
      403,
      'the operator API needs the admin token; relay tokens may not use it',
    );
    expectError(await app.http.post('/v1/admin/accounts').send({ id: 'x' }), 401, MISSING);
    expectError(
      await app.http
        .post('/v1/admin/accounts')
        .set('Authorization', 'Bearer not-the-admin-token')
        .send({ id: 'x' }),
      401,
      'invalid admin token',
    );
  });
  test('without RELAY_ADMIN_TOKEN every admin path is a 404', async () => {
    const bare = await startApp(redis, { RELAY_ADMIN_TOKEN: '' });
    try {
      for (const req of [
        bare.http.post('/v1/admin/accounts').set('Authorization', admin).send({ id: 'x' }),
        bare.http.get('/v1/admin/accounts/x').set('Authorization', admin),
        bare.http.delete('/v1/admin/accounts/x/tokens/0123456789abcdef'),
      ]) {
        const res = await req;
        expect(res.status).toBe(404);
        expect(res.body.success).toBe(false);
        expect(res.body.errors[0].code).toBe(404);
      }
    } finally {
      await bare.close();
    }
  });
});

describe('channel ids', () => {
  const RULE =
    'channelId must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot';
  test('128 characters of the allowed set are accepted', async () => {
    const client = relay(app, (await accountWithToken(app, 'acme')).auth);
    const id = 'Az09_-.'.repeat(18) + 'ab'; // 128
    expect(id).toHaveLength(128);
    expect((await client.send(id, { body: 1 })).status).toBe(200);
    expect((await client.pullOk(id)).messages).toHaveLength(1);
  });
  test.each([
    ['129 characters', 'a'.repeat(129)],
    ['a leading dot', '.hidden'],
    ['a space', 'a%20b'],
    ['a star', 'a*b'],
    ['a colon', 'a:b'],
    ['a brace', 'a%7Bb%7D'],
    ['non-ASCII', '%C3%A9t%C3%A9'],
  ])('%s is a 400 on every endpoint', async (_what, id) => {
    const client = relay(app, (await accountWithToken(app, 'acme')).auth);
    expectError(await client.send(id, { body: 1 }), 400, RULE);
    expectError(await client.batch(id, { messages: [{ body: 1 }] }), 400, RULE);
    expectError(await client.pull(id), 400, RULE);
    expectError(await client.ack(id, []), 400, RULE);
  });
});
