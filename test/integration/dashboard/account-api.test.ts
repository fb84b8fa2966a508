import { accountWithToken, sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ env: { RELAY_SESSION_TTL_SECONDS: '2' } });

async function ownerToken(account: string): Promise<string> {
  if (!(await rq.app.relay.store.accounts.get(account)))
    await rq.app.relay.store.accounts.create(account, 'free');
  const issued = await rq.app.relay.relay.tokens.issue(account, {
    role: 'owner',
    name: 'owner',
  });
  return issued.token;
}

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'] as string[];
  return raw[0].split(';')[0];
}

describe('account API roles', () => {
  test('an owner token reads its account with plan, limits and usage', async () => {
    const owner = await ownerToken('acme');
    await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', `Bearer ${owner}`)
      .send({ body: 'x' });
    const res = await rq.app.http.get('/v1/account').set('Authorization', `Bearer ${owner}`);
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      id: 'acme',
      plan: 'free',
      limits: {
        max_storage_bytes: 10_000_000,
        max_channels: 5,
        retention_seconds: 259_200,
        max_webhook_bytes: 1_048_576,
        max_message_bytes: 131_072,
      },
      usage: { storage_bytes: 5, channels: 1 },
    });
  });

  test('a relay token gets 403 on the account API', async () => {
    const { auth } = await accountWithToken(rq.app, 'acme');
    for (const [method, path] of [
      ['get', '/v1/account'],
      ['get', '/v1/account/tokens'],
      ['post', '/v1/account/tokens'],
      ['delete', '/v1/account/tokens/0123456789abcdef'],
    ] as const) {
      const res = await rq.app.http[method](path).set('Authorization', auth).send({});
      expect(res.status).toBe(403);
      expect(res.body.errors[0]).toEqual({
        code: 403,
        message: 'this endpoint needs an owner token; relay tokens may not manage the account',
      });
    }
  });

  test('an owner creates relay and owner tokens for its own account only, lists and revokes them', async () => {
    const owner = await ownerToken('acme');
    const other = await ownerToken('globex');
    const created = await rq.app.http
      .post('/v1/account/tokens')
      .set('Authorization', `Bearer ${owner}`)
      .send({ name: 'laptop', channels: ['orders'], role: 'relay' });
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({
      name: 'laptop',
      channels: ['orders'],
      role: 'relay',
      expires_ms: null,
    });
    const relayToken = created.body.result.token as string;
    expect(relayToken.endsWith('_acme')).toBe(true);

    const sent = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', `Bearer ${relayToken}`)
      .send({ body: 1 });
    expect(sent.status).toBe(200);
    const scoped = await rq.app.http
      .post('/v1/relay/channels/alerts/messages')
      .set('Authorization', `Bearer ${relayToken}`)
      .send({ body: 1 });
    expect(scoped.status).toBe(403);

    const list = await rq.app.http
      .get('/v1/account/tokens')
      .set('Authorization', `Bearer ${owner}`);
    expect(list.body.result.tokens.map((t: { name: string }) => t.name).sort()).toEqual([
      'laptop',
      'owner',
    ]);
    expect(JSON.stringify(list.body)).not.toContain(relayToken);
    expect(JSON.stringify(list.body)).not.toContain('hash');

    // another account's owner cannot revoke it: the id is unknown there
    const foreign = await rq.app.http
      .delete(`/v1/account/tokens/${created.body.result.id}`)
      .set('Authorization', `Bearer ${other}`);
    expect(foreign.status).toBe(404);

    const revoked = await rq.app.http
      .delete(`/v1/account/tokens/${created.body.result.id}`)
      .set('Authorization', `Bearer ${owner}`);
    expect(revoked.body.result).toEqual({ id: created.body.result.id, revoked: true });
    const after = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Authorization', `Bearer ${relayToken}`)
      .send({ body: 1 });
    expect(after.status).toBe(401);
  });
});

describe('dashboard sessions', () => {
  test('signing in with a wrong or relay token is refused with one plain message', async () => {
    const { token } = await accountWithToken(rq.app, 'acme');
    for (const t of ['nonsense', token, `${token}x`]) {
      const res = await rq.app.http.post('/dashboard/api/session').send({ token: t });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].message).toBe(
        'that token was not accepted: sign in with an owner token of your account',
      );
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  test('the session cookie is HttpOnly, SameSite=Strict, expires, and works on the API with CSRF', async () => {
    const owner = await ownerToken('acme');
    const signIn = await rq.app.http.post('/dashboard/api/session').send({ token: owner });
    expect(signIn.status).toBe(200);
    const setCookie = (signIn.headers['set-cookie'] as unknown as string[])[0];
    expect(setCookie).toMatch(/^relayq_session=rq_/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Max-Age=2');
    expect(setCookie).not.toContain(owner);
    const cookie = cookieOf(signIn);
    const csrf = signIn.body.result.csrf_token as string;

    const me = await rq.app.http.get('/v1/account').set('Cookie', cookie);
    expect(me.status).toBe(200);
    expect(me.body.result.id).toBe('acme');

    // unsafe methods need the CSRF header
    const noCsrf = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Cookie', cookie)
      .send({ body: 1 });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.errors[0].message).toBe(
      'missing or wrong X-CSRF-Token header for a dashboard session',
    );
    const wrongCsrf = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', 'x'.repeat(csrf.length))
      .send({ body: 1 });
    expect(wrongCsrf.status).toBe(403);
    const crossOrigin = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .set('Origin', 'https://evil.example')
      .send({ body: 1 });
    expect(crossOrigin.status).toBe(403);
    const ok = await rq.app.http
      .post('/v1/relay/channels/orders/messages')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send({ body: 1 });
    expect(ok.status).toBe(200);

    // expiry: RELAY_SESSION_TTL_SECONDS=2 in this file
    await sleep(2200);
    const expired = await rq.app.http.get('/v1/account').set('Cookie', cookie);
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].message).toBe('session has expired; sign in again');
  });

  test('sign-out revokes the session; revoking the sign-in token ends it too', async () => {
    const owner = await ownerToken('acme');
    const first = await rq.app.http.post('/dashboard/api/session').send({ token: owner });
    const cookie = cookieOf(first);
    expect((await rq.app.http.get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(
      200,
    );
    const out = await rq.app.http.delete('/dashboard/api/session').set('Cookie', cookie);
    expect(out.body.result).toEqual({ signed_out: true });
    expect((out.headers['set-cookie'] as unknown as string[])[0]).toContain('Max-Age=0');
    expect((await rq.app.http.get('/v1/account').set('Cookie', cookie)).status).toBe(401);
    expect((await rq.app.http.get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(
      401,
    );

    const second = await rq.app.http.post('/dashboard/api/session').send({ token: owner });
    const cookie2 = cookieOf(second);
    const ownerId = owner.slice(3, 19);
    await rq.app.relay.store.accounts.revokeToken('acme', ownerId);
    const ended = await rq.app.http.get('/v1/account').set('Cookie', cookie2);
    expect(ended.status).toBe(401);
    expect(ended.body.errors[0].message).toBe(
      'session has ended: its sign-in token was revoked or expired',
    );
  });

  test('sessions do not appear in the token list', async () => {
    const owner = await ownerToken('acme');
    await rq.app.http.post('/dashboard/api/session').send({ token: owner });
    const list = await rq.app.http
      .get('/v1/account/tokens')
      .set('Authorization', `Bearer ${owner}`);
    expect(list.body.result.tokens).toHaveLength(1);
  });

  test('the dashboard page is served with a strict CSP and hashed, long-cached assets', async () => {
    const page = await rq.app.http.get('/dashboard');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const scripts = [
      ...page.text.matchAll(/\/dashboard\/assets\/(app\.[0-9a-f]{12}\.(?:js|css))/g),
    ].map((m) => m[1]);
    expect(scripts.sort()).toHaveLength(2);
    for (const name of scripts) {
      const asset = await rq.app.http.get(`/dashboard/assets/${name}`);
      expect(asset.status).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const missing = await rq.app.http.get('/dashboard/assets/app.000000000000.js');
    expect(missing.status).toBe(404);
    expect(missing.body.success).toBe(false);
  });
});
