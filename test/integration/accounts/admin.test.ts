/**
 * The operator API: accounts (create, get with usage, change plan, delete with
 * all their data) and tokens (create, list without secrets, revoke, expiry),
 * seen from two pods over one Redis.
 */
import {
  ADMIN_TOKEN,
  accountWithToken,
  eventually,
  startApp,
  type TestApp,
} from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { duePartitionKeys } from '../../../src/store/keys';

const rq = useRelay({ pods: 2 });
let redis: TestRedis;
let a: TestApp;
let b: TestApp;
beforeAll(() => ({ redis, a, b } = rq));
const ADMIN = `Bearer ${ADMIN_TOKEN}`;

const failure = (code: number, message: string) => ({
  success: false,
  errors: [{ code, message }],
  messages: [],
  result: null,
});
const ok = (result: unknown) => ({ success: true, errors: [], messages: [], result });

async function createAccount(id: string, plan?: string) {
  const res = await a.http
    .post('/v1/admin/accounts')
    .set('Authorization', ADMIN)
    .send(plan ? { id, plan } : { id });
  return res;
}

async function createToken(account: string, body: object = {}) {
  const res = await a.http
    .post(`/v1/admin/accounts/${account}/tokens`)
    .set('Authorization', ADMIN)
    .send(body);
  expect(res.status).toBe(200);
  return res.body.result as {
    id: string;
    token: string;
    name: string | null;
    channels: string[] | null;
    expires_ms: number | null;
  };
}

const sendWith = (app: TestApp, token: string, channel = 'orders') =>
  app.http
    .post(`/v1/relay/channels/${channel}/messages`)
    .set('Authorization', `Bearer ${token}`)
    .send({ body: 1 });

describe('accounts', () => {
  test('create, get with usage, change plan', async () => {
    const created = await createAccount('acme', 'paid');
    expect(created.status).toBe(200);
    expect(created.body).toEqual(ok({ id: 'acme', plan: 'paid' }));
    expect((await createAccount('beta')).body).toEqual(ok({ id: 'beta', plan: 'free' }));

    const { token } = await createToken('acme');
    await sendWith(a, token, 'orders'); // 1 + 2 bytes
    await sendWith(b, token, 'alerts');
    const got = await b.http.get('/v1/admin/accounts/acme').set('Authorization', ADMIN);
    expect(got.body).toEqual(
      ok({ id: 'acme', plan: 'paid', usage: { storage_bytes: 6, channels: 2 } }),
    );
    const patched = await a.http
      .patch('/v1/admin/accounts/acme')
      .set('Authorization', ADMIN)
      .send({ plan: 'free' });
    expect(patched.body).toEqual(
      ok({ id: 'acme', plan: 'free', usage: { storage_bytes: 6, channels: 2 } }),
    );
  });

  test('bad input is a 400 naming the field; an existing id is a 409', async () => {
    await createAccount('acme');
    expect((await createAccount('acme', 'paid')).body).toEqual(
      failure(409, 'account acme already exists'),
    );
    expect((await createAccount('acme2', 'gold')).body).toEqual(
      failure(400, 'plan must be one of free, paid'),
    );
    const badId = await createAccount('.hidden');
    expect(badId.status).toBe(400);
    expect(badId.body.errors[0].message).toMatch(/^id /);
    const patch = await a.http
      .patch('/v1/admin/accounts/acme')
      .set('Authorization', ADMIN)
      .send({ plan: 'gold' });
    expect(patch.body).toEqual(failure(400, 'plan must be one of free, paid'));
  });

  test('unknown accounts and tokens are 404s', async () => {
    const missing = failure(404, 'account nope does not exist');
    const calls = [
      a.http.get('/v1/admin/accounts/nope'),
      a.http.patch('/v1/admin/accounts/nope').send({ plan: 'paid' }),
      a.http.delete('/v1/admin/accounts/nope'),
      a.http.get('/v1/admin/accounts/nope/tokens'),
      a.http.post('/v1/admin/accounts/nope/tokens').send({}),
      a.http.delete('/v1/admin/accounts/nope/tokens/0123456789abcdef'),
    ];
    for (const call of calls) {
      const res = await call.set('Authorization', ADMIN);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing);
    }
    await createAccount('acme');
    for (const id of ['0123456789abcdef', 'not-a-token-id']) {
      const res = await a.http
        .delete(`/v1/admin/accounts/acme/tokens/${id}`)
        .set('Authorization', ADMIN);
      expect(res.body).toEqual(failure(404, `token ${id} does not exist in account acme`));
    }
  });

  test('deleting an account removes every key of it, its tokens stop working everywhere', async () => {
    const { token } = await createToken((await createAccount('acme', 'paid')).body.result.id);
    const { auth: other } = await accountWithToken(a, 'other');
    const as = (t: string) => `Bearer ${t}`;
    await a.http
      .put('/v1/relay/channels/orders')
      .set('Authorization', as(token))
      .send({ dead_letter_channel: 'orders-dlq', max_attempts: 1 });
    await a.http
      .post('/v1/relay/channels/orders/messages/batch')
      .set('Authorization', as(token))
      .send({
        messages: [{ body: 1, dedup_id: 'd1' }, { body: 2, delay_seconds: 600 }, { body: 3 }],
      });
    await a.http
      .post('/v1/relay/channels/orders/messages/pull')
      .set('Authorization', as(token))
      .send({ batch_size: 1, visibility_timeout_ms: 1000 });
    await eventually(
      async () =>
        (await a.http.get('/v1/relay/channels/orders-dlq').set('Authorization', as(token))).body
          .result.queued === 1,
      6000,
      100,
    );
    await sendWith(b, token, 'alerts');
    await b.http
      .post('/v1/relay/channels/keep/messages')
      .set('Authorization', other)
      .send({ body: 1 });
    expect((await redis.keys('rq:\\{acme\\}:*')).length).toBeGreaterThan(5);

    const del = await b.http.delete('/v1/admin/accounts/acme').set('Authorization', ADMIN);
    expect(del.body).toEqual(ok({ id: 'acme', deleted: true }));
    expect(await redis.keys('rq:\\{acme\\}:*')).toEqual([]);
    for (const app of [a, b]) {
      expect((await sendWith(app, token)).body).toEqual(failure(401, 'invalid or revoked token'));
    }
    expect((await a.http.get('/v1/admin/accounts/acme').set('Authorization', ADMIN)).status).toBe(
      404,
    );
    // (through the app's client, which follows the cluster's slots)
    expect(await a.redis.sismember('rq:{~sys}:accounts', 'acme')).toBe(0);
    const due = duePartitionKeys(a.relay.context.duePartitionOf('acme')).due;
    expect(await a.redis.zscore(due, 'acme')).toBeNull();
    // Nothing comes back later (sweepers), and other accounts are untouched.
    await new Promise((r) => setTimeout(r, 300));
    expect(await redis.keys('rq:\\{acme\\}:*')).toEqual([]);
    const kept = await a.http.get('/v1/relay/channels/keep').set('Authorization', other);
    expect(kept.body.result.storage_bytes).toBe(3);

    // The id can be used again, from scratch.
    expect((await createAccount('acme')).body).toEqual(ok({ id: 'acme', plan: 'free' }));
    const fresh = await a.http.get('/v1/admin/accounts/acme').set('Authorization', ADMIN);
    expect(fresh.body.result.usage).toEqual({ storage_bytes: 0, channels: 0 });
  });
});

describe('tokens', () => {
  test('create answers with the secret once; the list never shows it or its hash', async () => {
    await createAccount('acme');
    const plain = await createToken('acme');
    expect(Object.keys(plain).sort()).toEqual(['channels', 'expires_ms', 'id', 'name', 'token']);
    expect(plain).toMatchObject({ name: null, channels: null, expires_ms: null });
    expect(plain.id).toMatch(/^[0-9a-f]{16}$/);
    const before = Date.now();
    const scoped = await createToken('acme', {
      name: 'laptop',
      channels: ['orders', 'alerts'],
      expires_in_seconds: 86400,
    });
    expect(scoped).toMatchObject({ name: 'laptop', channels: ['orders', 'alerts'] });
    expect(scoped.expires_ms).toBeGreaterThanOrEqual(before + 86400_000);
    expect(scoped.expires_ms).toBeLessThanOrEqual(Date.now() + 86400_000);

    const list = await b.http.get('/v1/admin/accounts/acme/tokens').set('Authorization', ADMIN);
    expect(list.status).toBe(200);
    const tokens = list.body.result.tokens as Record<string, unknown>[];
    expect(tokens.map((t) => t.id)).toEqual([plain.id, scoped.id]);
    expect(tokens[1]).toMatchObject({
      id: scoped.id,
      name: 'laptop',
      channels: ['orders', 'alerts'],
      expires_ms: scoped.expires_ms,
    });
    for (const t of tokens) {
      expect(t).not.toHaveProperty('hash');
      expect(t).not.toHaveProperty('token');
    }
    const text = JSON.stringify(list.body);
    for (const t of [plain.token, scoped.token]) {
      const secret = t.slice(3 + 16, 3 + 16 + 43);
      expect(text).not.toContain(secret);
    }
    // Redis holds no secret either.
    const stored = await a.redis.hvals('rq:{acme}:tokens');
    expect(stored).toHaveLength(2);
    for (const t of [plain.token, scoped.token]) {
      expect(JSON.stringify(stored)).not.toContain(t.slice(3 + 16, 3 + 16 + 43));
    }
  });

  test('token fields are validated', async () => {
    await createAccount('acme');
    const bad = async (body: object, message: string) => {
      const res = await a.http
        .post('/v1/admin/accounts/acme/tokens')
        .set('Authorization', ADMIN)
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(message);
    };
    await bad({ expires_in_seconds: 0 }, 'expires_in_seconds');
    await bad({ channels: ['bad/channel'] }, 'channels[0]');
    await bad({ channels: [] }, 'channels');
    await bad({ nmae: 'x' }, 'nmae');
  });

  test('a revoked token is refused from the next request on, on every pod', async () => {
    await createAccount('acme');
    const keep = await createToken('acme');
    const gone = await createToken('acme');
    expect((await sendWith(a, gone.token)).status).toBe(200);
    expect((await sendWith(b, gone.token)).status).toBe(200);
    const revoke = await b.http
      .delete(`/v1/admin/accounts/acme/tokens/${gone.id}`)
      .set('Authorization', ADMIN);
    expect(revoke.body).toEqual(ok({ id: gone.id, revoked: true }));
    for (const app of [a, b]) {
      expect((await sendWith(app, gone.token)).body).toEqual(
        failure(401, 'invalid or revoked token'),
      );
      expect((await sendWith(app, keep.token)).status).toBe(200);
    }
    const list = await a.http.get('/v1/admin/accounts/acme/tokens').set('Authorization', ADMIN);
    expect(list.body.result.tokens.map((t: { id: string }) => t.id)).toEqual([keep.id]);
    const again = await a.http
      .delete(`/v1/admin/accounts/acme/tokens/${gone.id}`)
      .set('Authorization', ADMIN);
    expect(again.body).toEqual(failure(404, `token ${gone.id} does not exist in account acme`));
  });

  test('an expired token is refused on every pod', async () => {
    await createAccount('acme');
    const short = await createToken('acme', { expires_in_seconds: 1 });
    expect((await sendWith(a, short.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    for (const app of [a, b]) {
      expect((await sendWith(app, short.token)).body).toEqual(failure(401, 'token has expired'));
      const list = await app.http
        .get('/v1/relay/channels')
        .set('Authorization', `Bearer ${short.token}`);
      expect(list.status).toBe(401);
    }
  });
});

describe('admin authorization', () => {
  test('a relay token gets 403, a wrong or missing admin token 401', async () => {
    const { auth } = await accountWithToken(a, 'acme');
    const relay = await a.http.get('/v1/admin/accounts/acme').set('Authorization', auth);
    expect(relay.body).toEqual(
      failure(403, 'the operator API needs the admin token; relay tokens may not use it'),
    );
    const wrong = await a.http
      .get('/v1/admin/accounts/acme')
      .set('Authorization', 'Bearer not-the-admin-token-at-all');
    expect(wrong.body).toEqual(failure(401, 'invalid admin token'));
    const none = await a.http.get('/v1/admin/accounts/acme');
    expect(none.status).toBe(401);
  });

  test('without RELAY_ADMIN_TOKEN every admin path is a 404', async () => {
    const closed = await startApp(redis, { RELAY_ADMIN_TOKEN: '' });
    try {
      for (const call of [
        closed.http.post('/v1/admin/accounts').send({ id: 'x' }),
        closed.http.get('/v1/admin/accounts/acme'),
        closed.http.get('/v1/admin/accounts/acme/tokens'),
      ]) {
        const res = await call.set('Authorization', ADMIN);
        expect(res.status).toBe(404);
        expect(res.body.success).toBe(false);
        expect(res.body.errors[0].code).toBe(404);
      }
    } finally {
      await closed.close();
    }
  });
});
