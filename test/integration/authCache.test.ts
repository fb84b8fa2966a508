/**
 * RELAY_AUTH_CACHE_MS: a pod may reuse a token lookup, but its own revocations,
 * plan changes and account deletions take effect on the very next request.
 */
import { accountWithToken, ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { startRedis, type TestRedis } from '../helpers/redis';

let redis: TestRedis;
let app: TestApp;
const admin = `Bearer ${ADMIN_TOKEN}`;

beforeAll(async () => {
  redis = await startRedis();
  app = await startApp(redis, { RELAY_AUTH_CACHE_MS: '60000' });
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});

const send = (auth: string) =>
  app.http.post('/v1/relay/channels/c1/messages').set('Authorization', auth).send({ body: 1 });

test('a revoked token is refused on the next request although its lookup was cached', async () => {
  const { auth, tokenId } = await accountWithToken(app, 'cache-revoke');
  expect((await send(auth)).status).toBe(200);
  expect((await send(auth)).status).toBe(200);
  const revoked = await app.http
    .delete(`/v1/admin/accounts/cache-revoke/tokens/${tokenId}`)
    .set('Authorization', admin);
  expect(revoked.status).toBe(200);
  const after = await send(auth);
  expect(after.status).toBe(401);
  expect(after.body.errors).toEqual([{ code: 401, message: 'invalid or revoked token' }]);
});

test('a deleted account is refused on the next request', async () => {
  const { auth } = await accountWithToken(app, 'cache-delete');
  expect((await send(auth)).status).toBe(200);
  const deleted = await app.http
    .delete('/v1/admin/accounts/cache-delete')
    .set('Authorization', admin);
  expect(deleted.status).toBe(200);
  expect((await send(auth)).status).toBe(401);
});

test('a plan change applies to the next request', async () => {
  const { auth } = await accountWithToken(app, 'cache-plan', { plan: 'paid' });
  for (let i = 2; i <= 6; i++) {
    const r = await app.http
      .post(`/v1/relay/channels/c${i}/messages`)
      .set('Authorization', auth)
      .send({ body: i });
    expect(r.status).toBe(200);
  }
  const patched = await app.http
    .patch('/v1/admin/accounts/cache-plan')
    .set('Authorization', admin)
    .send({ plan: 'free' });
  expect(patched.status).toBe(200);
  const r = await app.http
    .post('/v1/relay/channels/c7/messages')
    .set('Authorization', auth)
    .send({ body: 7 });
  expect(r.status).toBe(403);
  expect(r.body.errors[0].message).toBe(
    'channel limit reached: the plan allows at most 5 channels',
  );
});
