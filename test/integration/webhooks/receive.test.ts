/** /hooks/{key}: exact bytes, request metadata, size limit, methods, limits and events. */
import { ADMIN_TOKEN, startApp, storageBytes } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, errorEnvelope, type PulledMessage } from '../../helpers/relayClient';
import { createHook, deliver, hookMeta, listenOnPods, pullOver } from './hooks';

const pods = useTwoPods((redis) =>
  startApp(redis, {
    RELAY_PLANS: JSON.stringify({
      small: {
        max_storage_bytes: 3000,
        max_channels: 5,
        retention_seconds: 60,
        max_webhook_bytes: 1000,
      },
    }),
  }),
);
listenOnPods(pods);

async function setup(plan?: string) {
  const account = await accountOnPods(pods, 'wr', { plan });
  const hook = await createHook(pods.a, account.auth, 'inbox');
  const pullOne = async (): Promise<PulledMessage> => {
    const pulled = await account.ca.pullOk('inbox');
    expect(pulled.messages).toHaveLength(1);
    return pulled.messages[0];
  };
  return { ...account, hook, pullOne };
}

test('JSON with odd whitespace and key order comes back byte for byte, with the request', async () => {
  const { hook, pullOne } = await setup();
  const body = '{ "z":1,\n\t"a" : [ 1.50, "é" ] ,"a":2 }  \r\n';
  const res = await deliver(pods.b, `${hook.path}?b=2&a=1&a=%20x`, body, {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'GitHub-Hookshot/abc',
    'X-GitHub-Event': 'push',
  });
  expect(res.status).toBe(200);
  expect(res.body.result.id).toMatch(/^[0-9a-f-]{36}$/);
  const m = await pullOne();
  expect(m.id).toBe(res.body.result.id);
  expect(m.content_type).toBe('text');
  expect(m.body).toBe(body);
  const webhook = (m.metadata as { webhook: Record<string, unknown> }).webhook;
  expect(webhook).toMatchObject({
    id: hook.id,
    method: 'POST',
    query: 'b=2&a=1&a=%20x',
    verified: null,
  });
  expect(typeof webhook.received_at).toBe('number');
  expect(webhook.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'GitHub-Hookshot/abc',
    'x-github-event': 'push',
  });
});

test('a form-encoded body, a PUT, and an empty body', async () => {
  const { hook, ca } = await setup();
  const form = 'a=1&b=%C3%A9+x&c=';
  expect(
    (
      await deliver(pods.a, hook.path, form, {
        'Content-Type': 'application/x-www-form-urlencoded',
      })
    ).status,
  ).toBe(200);
  expect((await deliver(pods.a, hook.path, 'put body', {}, 'PUT')).status).toBe(200);
  expect((await deliver(pods.a, hook.path, Buffer.alloc(0))).status).toBe(200);
  const { messages } = await ca.pullOk('inbox');
  expect(messages.map((m) => [m.content_type, m.body, hookMeta(m).method])).toEqual([
    ['text', form, 'POST'],
    ['text', 'put body', 'PUT'],
    ['text', '', 'POST'],
  ]);
  expect(hookMeta(messages[0]).query).toBe('');
});

test('bytes that are not UTF-8 are kept exactly, as base64 bytes; a BOM is kept', async () => {
  const { hook, ca } = await setup();
  const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x0a]);
  const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]);
  expect((await deliver(pods.a, hook.path, binary)).status).toBe(200);
  expect((await deliver(pods.a, hook.path, bom)).status).toBe(200);
  const { messages } = await ca.pullOk('inbox');
  expect(messages[0].content_type).toBe('bytes');
  expect(Buffer.from(messages[0].body as string, 'base64').equals(binary)).toBe(true);
  expect(messages[1].content_type).toBe('text');
  expect(Buffer.from(messages[1].body as string, 'utf8').equals(bom)).toBe(true);
});

test('headers: hop-by-hop, host, credentials and forwarding headers are dropped', async () => {
  const { hook, pullOne } = await setup();
  await deliver(pods.a, hook.path, 'x', {
    Authorization: 'Bearer secret',
    Cookie: 'a=b',
    Forwarded: 'for=1.2.3.4',
    'X-Forwarded-For': '1.2.3.4',
    'X-Forwarded-Proto': 'https',
    'X-Real-IP': '1.2.3.4',
    'Proxy-Authorization': 'Basic eA==',
    'Keep-Alive': 'timeout=5',
    TE: 'trailers',
    'X-Custom': 'kept',
    'Stripe-Signature': 't=1,v1=ab',
  });
  const headers = hookMeta(await pullOne()).headers;
  expect(Object.keys(headers).sort()).toEqual(['stripe-signature', 'x-custom']);
  expect(headers['x-custom']).toBe('kept');
});

test('a body at max_webhook_bytes is stored; one byte more is a 413 and nothing is stored', async () => {
  const { id, hook, ca } = await setup('small');
  const over = await deliver(pods.a, hook.path, Buffer.alloc(1001, 0x61));
  expect(over).toEqual({
    status: 413,
    body: errorEnvelope(
      413,
      "webhook request body is over the plan's 1000-byte limit (max_webhook_bytes)",
    ),
  });
  expect(await storageBytes(pods.a, id)).toBe(0);
  const at = await deliver(pods.a, hook.path, Buffer.alloc(1000, 0x61));
  expect(at.status).toBe(200);
  const [m] = (await ca.pullOk('inbox')).messages;
  expect(m.body).toBe('a'.repeat(1000));
  // storage counts what is stored: the body's JSON text plus the metadata's JSON
  const size =
    Buffer.byteLength(JSON.stringify(m.body)) + Buffer.byteLength(JSON.stringify(m.metadata));
  expect(await storageBytes(pods.a, id)).toBe(size);
  // the ack frees exactly it
  expect((await deliver(pods.a, hook.path, Buffer.alloc(500, 0x62))).status).toBe(200);
  const both = await storageBytes(pods.a, id);
  await ca.ackOk('inbox', { lease_ids: [m.lease_id] });
  expect(await storageBytes(pods.a, id)).toBe(both - size);
});

test('the default limit is 1 MiB, larger than a JSON message: binary at the limit round-trips', async () => {
  const { hook, auth, id } = await setup();
  await pods.a.http
    .patch(`/v1/admin/accounts/${id}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ plan: 'paid' });
  const bytes = Buffer.alloc(1_048_576);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
  expect((await deliver(pods.a, hook.path, bytes)).status).toBe(200);
  const over = await deliver(pods.a, hook.path, Buffer.concat([bytes, Buffer.from([1])]));
  expect(over.status).toBe(413);
  const { messages } = await pullOver(pods.a, auth, 'inbox');
  expect(messages).toHaveLength(1);
  expect(messages[0].content_type).toBe('bytes');
  expect(Buffer.from(messages[0].body as string, 'base64').equals(bytes)).toBe(true);
});

test('GET, HEAD and DELETE are 405 with Allow: POST, PUT; unknown keys are 404', async () => {
  const { hook, ca, auth } = await setup();
  for (const method of ['get', 'delete'] as const) {
    const res = await pods.a.http[method](hook.path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, PUT');
    expect(res.body).toEqual(
      errorEnvelope(405, `method ${method.toUpperCase()} is not allowed here; use POST, PUT`),
    );
  }
  const head = await pods.a.http.head(hook.path);
  expect(head.status).toBe(405);
  expect(head.headers.allow).toBe('POST, PUT');

  const notFound = errorEnvelope(404, 'unknown webhook URL (it may have been deleted)');
  const key = hook.path.slice('/hooks/'.length);
  const tampered = key.slice(0, 25) + (key[25] === 'A' ? 'B' : 'A') + key.slice(26);
  for (const path of ['/hooks/nope', `/hooks/${tampered}`, `/hooks/${key}x`]) {
    expect(await deliver(pods.a, path, 'x')).toEqual({ status: 404, body: notFound });
  }
  // an API token is not a webhook key, and a webhook key is not a token
  expect((await deliver(pods.a, `/hooks/${auth.slice(7)}`, 'x')).status).toBe(404);
  const asToken = await pods.a.http.get('/v1/relay/channels').set('Authorization', `Bearer ${key}`);
  expect(asToken.status).toBe(401);
  expect((await ca.pullOk('inbox')).messages).toEqual([]);
});

test('storage quota refusals are as for a send: 403, nothing stored', async () => {
  const { hook, id } = await setup('small');
  // each message: 900 body bytes + its metadata
  let status = 200;
  let stored = 0;
  while (status === 200) {
    ({ status } = await deliver(pods.a, hook.path, Buffer.alloc(900, 0x62)));
    if (status === 200) stored++;
  }
  expect(stored).toBe(2);
  const res = await deliver(pods.a, hook.path, Buffer.alloc(900, 0x62));
  expect(res).toEqual({
    status: 403,
    body: errorEnvelope(
      403,
      'storage limit reached: the plan allows at most 3000 bytes of stored messages',
    ),
  });
  expect(await storageBytes(pods.a, id)).toBeLessThanOrEqual(3000);
});

test('rate limit refusals are 429 with Retry-After', async () => {
  // the account's budget: creating the webhook is one request, the first delivery the second
  const app = await startApp(pods.redis, {
    RELAY_RATE_LIMIT_PER_SECOND: '1',
    RELAY_RATE_LIMIT_BURST: '2',
  });
  try {
    const { auth } = await accountOnPods({ ...pods, a: app }, 'wr');
    const hook = await createHook(app, auth, 'inbox');
    // one request per 1 s window: of three quick ones (two windows at most) one is refused
    const replies = [];
    for (const body of ['one', 'two', 'three']) replies.push(await deliver(app, hook.path, body));
    expect(replies[0].status).toBe(200);
    const refused = replies.find((r) => r.status === 429)!;
    expect(refused.body.errors[0].code).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const { messages } = await relay(pods.a, auth).pullOk('inbox'); // pod a has no rate limit
    expect(messages).toHaveLength(replies.filter((r) => r.status === 200).length);
  } finally {
    await app.close();
  }
});
