/** Verification secrets at rest: stored as given, or sealed under RELAY_WEBHOOK_SECRET_KEY. */
import { startApp } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { errorEnvelope } from '../../helpers/relayClient';
import { createHook, deliver, hmacHex, listen, listenOnPods } from './hooks';

const KEY = 'k'.repeat(40);
const pods = useTwoPods((redis) => startApp(redis, { RELAY_WEBHOOK_SECRET_KEY: KEY }));
listenOnPods(pods);

const SECRET = 'very-secret-github-value';
const body = '{"ok":true}';
const signed = { 'X-Hub-Signature-256': `sha256=${hmacHex(SECRET, body)}` };

/** The webhook's record as Redis holds it. */
async function storedRecord(account: string, id: string): Promise<string> {
  return (await pods.a.redis.hget(`rq:{${account}}:webhooks`, id)) ?? '';
}

test('with RELAY_WEBHOOK_SECRET_KEY the secret is sealed in Redis and still verifies', async () => {
  const { id, auth } = await accountOnPods(pods, 'ws');
  const hook = await createHook(pods.a, auth, 'events', {
    verify: { scheme: 'github', secret: SECRET },
  });
  const record = await storedRecord(id, hook.id);
  expect(record).not.toContain(SECRET);
  expect(JSON.parse(record).verify.secret).toMatch(/^enc1:/);
  expect((await deliver(pods.a, hook.path, body, signed)).status).toBe(200);
  const bad = await deliver(pods.a, hook.path, body, {
    'X-Hub-Signature-256': `sha256=${hmacHex('other', body)}`,
  });
  expect(bad.status).toBe(401);

  // a pod without the key (or with another) cannot use it: a 500, nothing stored
  const internal = errorEnvelope(500, 'internal error; the request may be retried');
  expect(await deliver(pods.b, hook.path, body, signed)).toEqual({ status: 500, body: internal });
  const other = await startApp(pods.redis, { RELAY_WEBHOOK_SECRET_KEY: 'o'.repeat(40) });
  try {
    await listen(other);
    expect(await deliver(other, hook.path, body, signed)).toEqual({ status: 500, body: internal });
  } finally {
    await other.close();
  }
  const res = await pods.a.http
    .post('/v1/relay/channels/events/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(res.body.result.messages).toHaveLength(1);
});

test('without the key the secret is stored as given, and never shown by the API', async () => {
  const { id, auth } = await accountOnPods(pods, 'ws');
  const hook = await createHook(pods.b, auth, 'events', {
    verify: { scheme: 'github', secret: SECRET },
  });
  expect(JSON.parse(await storedRecord(id, hook.id)).verify.secret).toBe(SECRET);
  // readable by every pod, the keyed one included
  expect((await deliver(pods.a, hook.path, body, signed)).status).toBe(200);
  expect((await deliver(pods.b, hook.path, body, signed)).status).toBe(200);
  const list = await pods.a.http
    .get('/v1/relay/channels/events/webhooks')
    .set('Authorization', auth);
  expect(JSON.stringify(list.body)).not.toContain(SECRET);
});
