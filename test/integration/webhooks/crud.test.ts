/** Webhook endpoints of a channel: create (URL shown once), list, delete, and bad input. */
import { ADMIN_TOKEN, accountWithToken, startApp } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { errorEnvelope } from '../../helpers/relayClient';
import { createHook, deliver, listenOnPods } from './hooks';

const pods = useTwoPods((redis) =>
  startApp(redis, {
    RELAY_PLANS: '{"tiny":{"max_storage_bytes":100000,"max_channels":1,"retention_seconds":60}}',
  }),
);
listenOnPods(pods);

const hooksPath = (channel: string) => `/v1/relay/channels/${channel}/webhooks`;

async function create(auth: string, channel: string, body: unknown) {
  const res = await pods.a.http
    .post(hooksPath(channel))
    .set('Authorization', auth)
    .send(body as object);
  return { status: res.status, body: res.body };
}

test('create answers the URL once; the list never shows the key or the secret', async () => {
  const { auth, ca } = await accountOnPods(pods, 'wc');
  const res = await create(auth, 'orders', {
    label: 'github',
    verify: { scheme: 'github', secret: 'gh-secret-value' },
  });
  expect(res.status).toBe(200);
  const hook = res.body.result;
  expect(Object.keys(hook).sort()).toEqual(
    ['created_at', 'dedup_header', 'group_by', 'id', 'label', 'url', 'verify'].sort(),
  );
  expect(hook.verify).toEqual({ scheme: 'github', on_failure: 'reject' });
  expect(hook.label).toBe('github');
  expect(hook.id).toMatch(/^[0-9a-f]{16}$/);
  // absolute URL on the request's own host; the key holds 256 random bits
  const url = new URL(hook.url);
  expect(url.protocol).toBe('http:');
  const key = url.pathname.replace('/hooks/', '');
  expect(key).toMatch(new RegExp(`^wh_${hook.id}[A-Za-z0-9_-]{43}_wc-\\d+$`));
  expect(typeof hook.created_at).toBe('number');

  // the channel exists from the webhook on
  expect((await ca.channel('orders')).status).toBe(200);

  const list = await pods.b.http.get(hooksPath('orders')).set('Authorization', auth);
  expect(list.status).toBe(200);
  expect(list.body.result).toEqual({
    webhooks: [
      {
        id: hook.id,
        label: 'github',
        verify: { scheme: 'github', on_failure: 'reject' },
        dedup_header: null,
        group_by: null,
        created_at: hook.created_at,
        last_received_at: null,
        last_refusal: null,
        received_count: 0,
      },
    ],
  });
  const text = JSON.stringify(list.body);
  expect(text).not.toContain('gh-secret-value');
  expect(text).not.toContain(key.slice(3 + 16, 3 + 16 + 43));
  // other channels list their own webhooks only
  const other = await pods.a.http.get(hooksPath('other')).set('Authorization', auth);
  expect(other.body.result).toEqual({ webhooks: [] });
});

test('an empty body makes an unverified webhook; list counts deliveries and their time', async () => {
  const { auth } = await accountOnPods(pods, 'wc');
  const res = await pods.a.http.post(hooksPath('feed')).set('Authorization', auth);
  expect(res.status).toBe(200);
  expect(res.body.result.verify).toBeNull();
  expect(res.body.result.label).toBeNull();
  const path = new URL(res.body.result.url).pathname;
  const before = Date.now();
  expect((await deliver(pods.a, path, 'one')).status).toBe(200);
  expect((await deliver(pods.b, path, 'two')).status).toBe(200);
  const list = await pods.a.http.get(hooksPath('feed')).set('Authorization', auth);
  const [entry] = list.body.result.webhooks;
  expect(entry.received_count).toBe(2);
  expect(entry.last_received_at).toBeGreaterThanOrEqual(before - 1000);
  expect(entry.last_received_at).toBeLessThanOrEqual(Date.now() + 1000);
});

test('forwarded headers do not change the URL unless the service trusts a proxy', async () => {
  const { auth } = await accountOnPods(pods, 'wc');
  const res = await pods.a.http
    .post(hooksPath('orders'))
    .set('Authorization', auth)
    .set('Host', 'relay.internal:8080')
    .set('X-Forwarded-Host', 'evil.example')
    .set('X-Forwarded-Proto', 'https');
  expect(res.body.result.url).toMatch(/^http:\/\/relay\.internal:8080\/hooks\/wh_/);
});

test('RELAY_PUBLIC_URL is the base of webhook URLs', async () => {
  const app = await startApp(pods.redis, { RELAY_PUBLIC_URL: 'https://relay.example.com/base/' });
  try {
    const { auth } = await accountWithToken(app, 'wc-public');
    const res = await app.http.post(hooksPath('orders')).set('Authorization', auth);
    expect(res.body.result.url).toMatch(
      /^https:\/\/relay\.example\.com\/base\/hooks\/wh_[0-9a-f]{16}[A-Za-z0-9_-]{43}_wc-public$/,
    );
  } finally {
    await app.close();
  }
});

test('delete: the URL is refused at once on every pod; unknown ids are 404', async () => {
  const { auth } = await accountOnPods(pods, 'wc');
  const hook = await createHook(pods.a, auth, 'orders');
  expect((await deliver(pods.b, hook.path, 'x')).status).toBe(200);
  const del = await pods.a.http
    .delete(`${hooksPath('orders')}/${hook.id}`)
    .set('Authorization', auth);
  expect(del.status).toBe(200);
  expect(del.body.result).toEqual({ deleted: true });
  const refused = await deliver(pods.b, hook.path, 'y');
  expect(refused).toEqual({
    status: 404,
    body: errorEnvelope(404, 'unknown webhook URL (it may have been deleted)'),
  });
  const again = await pods.b.http
    .delete(`${hooksPath('orders')}/${hook.id}`)
    .set('Authorization', auth);
  expect(again.status).toBe(404);
  expect(again.body).toEqual(
    errorEnvelope(404, `webhook ${hook.id} does not exist on channel orders`),
  );
  const bad = await pods.b.http.delete(`${hooksPath('orders')}/nope`).set('Authorization', auth);
  expect(bad.body).toEqual(
    errorEnvelope(400, 'webhook id must be the 16 hexadecimal characters shown when created'),
  );
});

test('a webhook is deleted with its channel, and with its account', async () => {
  const { id, auth } = await accountOnPods(pods, 'wc');
  const one = await createHook(pods.a, auth, 'orders');
  const two = await createHook(pods.a, auth, 'invoices');
  const del = await pods.a.http.delete('/v1/relay/channels/orders').set('Authorization', auth);
  expect(del.status).toBe(200);
  expect((await deliver(pods.b, one.path, 'x')).status).toBe(404);
  expect((await deliver(pods.b, two.path, 'x')).status).toBe(200);
  // a new channel of the same name does not bring the old webhook back
  expect((await createHook(pods.a, auth, 'orders')).id).not.toBe(one.id);
  expect((await deliver(pods.a, one.path, 'x')).status).toBe(404);

  const gone = await pods.a.http
    .delete(`/v1/admin/accounts/${id}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(gone.status).toBe(200);
  expect((await deliver(pods.b, two.path, 'x')).status).toBe(404);
  expect(await pods.redis.keys(`rq:{${id}}:*`)).toEqual([]);
});

test('a token limited to other channels may not manage the webhooks of this one', async () => {
  const { id } = await accountOnPods(pods, 'wc');
  const { auth } = await accountWithToken(pods.a, id, { channels: ['alerts'] });
  const res = await create(auth, 'orders', {});
  expect(res).toEqual({
    status: 403,
    body: errorEnvelope(403, 'this token may not use channel orders'),
  });
  expect((await create(auth, 'alerts', {})).status).toBe(200);
  const list = await pods.a.http.get(hooksPath('orders')).set('Authorization', auth);
  expect(list.status).toBe(403);
  const anonymous = await pods.a.http.get(hooksPath('alerts'));
  expect(anonymous.status).toBe(401);
});

test('creating a webhook creates its channel within the plan channel limit', async () => {
  const { auth } = await accountOnPods(pods, 'wc', { plan: 'tiny' });
  expect((await create(auth, 'one', {})).status).toBe(200);
  expect(await create(auth, 'two', {})).toEqual({
    status: 403,
    body: errorEnvelope(403, 'channel limit reached: the plan allows at most 1 channels'),
  });
  expect((await create(auth, 'one', {})).status).toBe(200);
});

test('an account may have at most 100 webhooks', async () => {
  const { auth } = await accountOnPods(pods, 'wc');
  for (let i = 0; i < 100; i++) expect((await create(auth, 'many', {})).status).toBe(200);
  expect(await create(auth, 'many', {})).toEqual({
    status: 403,
    body: errorEnvelope(403, 'webhook limit reached: an account may have at most 100 webhooks'),
  });
  const list = await pods.a.http.get(hooksPath('many')).set('Authorization', auth);
  expect(list.body.result.webhooks).toHaveLength(100);
  const first = list.body.result.webhooks[0].id;
  await pods.a.http.delete(`${hooksPath('many')}/${first}`).set('Authorization', auth);
  expect((await create(auth, 'many', {})).status).toBe(200);
});

test.each([
  [
    { verify: { scheme: 'gitlab', secret: 's' } },
    'verify.scheme must be one of github, stripe, standard-webhooks, hmac-sha256',
  ],
  [{ verify: { scheme: 'github' } }, 'required field verify.secret is missing'],
  [{ verify: { scheme: 'github', secret: '' } }, 'verify.secret is empty'],
  [{ label: 'x'.repeat(101) }, 'label must be at most 100 characters'],
  [{ labels: 'x' }, 'unknown field labels'],
  [
    { verify: { scheme: 'github', secret: 's', on_failure: 'ignore' } },
    'verify.on_failure must be one of reject, record',
  ],
  [
    { verify: { scheme: 'hmac-sha256', secret: 's' } },
    'required field verify.header is missing (scheme hmac-sha256)',
  ],
  [
    { verify: { scheme: 'github', secret: 's', header: 'x-sig' } },
    'verify.header applies only to scheme hmac-sha256',
  ],
  [
    { verify: { scheme: 'hmac-sha256', secret: 's', header: 'x sig' } },
    'verify.header must be an HTTP header name, such as X-Request-Id',
  ],
  [
    { verify: { scheme: 'hmac-sha256', secret: 's', header: 'x', encoding: 'b32' } },
    'verify.encoding must be one of hex, base64',
  ],
  [
    { verify: { scheme: 'standard-webhooks', secret: 'plain' } },
    'verify.secret must be whsec_ followed by the base64 signing key for scheme standard-webhooks',
  ],
  [
    { dedup_header: 'a', verify: { scheme: 'github', secret: 's', dedup_header: 'b' } },
    'dedup_header and verify.dedup_header name different headers; give one',
  ],
  [[1], 'request body must be a JSON object'],
])('bad input %j: 400 naming the field, nothing created', async (body, message) => {
  const { auth } = await accountOnPods(pods, 'wc');
  expect(await create(auth, 'orders', body)).toEqual({
    status: 400,
    body: errorEnvelope(400, message),
  });
  const list = await pods.a.http.get(hooksPath('orders')).set('Authorization', auth);
  expect(list.body.result).toEqual({ webhooks: [] });
});
