/**
 * What a refused webhook delivery says and costs: the check that failed, in the answer, in
 * the log (never the secret, the body or the URL key) and as the webhook's last_refusal;
 * refusals never count against the account's rate and are bounded per URL
 * (webhook_refusals_per_second); an unverified delivery (on_failure record) never takes a
 * genuine one's dedup id; a body is charged for what it takes in Redis.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger';
import { startApp, storageBytes, type TestApp } from '../../helpers/app';
import { accountOnPods, type Pods } from '../../helpers/pods';
import { useRelay } from '../../helpers/useRelay';
import { errorEnvelope } from '../../helpers/relayClient';
import { createHook, deliver, hmacHex, hookMeta, listenOnPods, stripeSignature } from './hooks';

let logged = '';
const sink = new Writable({
  write(chunk, _enc, done) {
    logged += chunk.toString();
    done();
  },
});

const plans = JSON.stringify({
  free: { max_storage_bytes: 10_000_000, max_channels: 10, retention_seconds: 86400 },
  tight: {
    max_storage_bytes: 10_000_000,
    max_channels: 10,
    retention_seconds: 86400,
    rate_limit_per_second: 5,
    rate_limit_burst: 5,
    webhook_refusals_per_second: 3,
  },
});
const env = { RELAY_PLANS: plans };
const rq = useRelay({
  pods: 2,
  flush: false,
  start: (redis): Promise<TestApp> => startApp(redis, env, createLogger('info', sink)),
});
const pods: Pods = {
  get redis() {
    return rq.redis;
  },
  get a() {
    return rq.a;
  },
  get b() {
    return rq.b;
  },
};
listenOnPods(pods);

const GITHUB_SECRET = 'refusal-test-secret';
const body = '{"action":"opened","number":7}';
const signed = (b: string) => ({ 'X-Hub-Signature-256': `sha256=${hmacHex(GITHUB_SECRET, b)}` });

async function hooks(account: { auth: string }, channel: string) {
  const res = await pods.a.http
    .get(`/v1/relay/channels/${channel}/webhooks`)
    .set('Authorization', account.auth);
  return res.body.result.webhooks as { id: string; last_refusal: unknown }[];
}

test('each refusal names the check that failed, in the answer, the log and last_refusal', async () => {
  const account = await accountOnPods(pods, 'why');
  const hook = await createHook(pods.a, account.auth, 'gh', {
    verify: { scheme: 'github', secret: GITHUB_SECRET },
  });
  expect((await hooks(account, 'gh'))[0].last_refusal).toBeNull();
  const refused = (reason: string) => ({
    status: 401,
    body: errorEnvelope(
      401,
      `webhook signature verification failed (scheme github): ${reason}; nothing was stored`,
    ),
  });
  expect(await deliver(pods.a, hook.path, body)).toEqual(
    refused('missing X-Hub-Signature-256 header'),
  );
  expect(await deliver(pods.b, hook.path, body, { 'X-Hub-Signature-256': 'md5=00' })).toEqual(
    refused('X-Hub-Signature-256 is not sha256=<hex>'),
  );
  const before = Date.now();
  expect(await deliver(pods.a, hook.path, `${body} `, signed(body))).toEqual(
    refused('signature does not match'),
  );
  const [listed] = await hooks(account, 'gh');
  expect(listed.last_refusal).toEqual({
    at: expect.any(Number),
    reason: 'signature does not match',
  });
  expect((listed.last_refusal as { at: number }).at).toBeGreaterThanOrEqual(before - 1000);
  const lines = logged
    .split('\n')
    .filter((l) => l.includes('"msg":"webhook delivery refused"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.map((l) => [l.level, l.webhook, l.reason])).toEqual([
    [30, hook.id, 'missing X-Hub-Signature-256 header'],
    [30, hook.id, 'X-Hub-Signature-256 is not sha256=<hex>'],
    [30, hook.id, 'signature does not match'],
  ]);
  const key = hook.path.split('/').pop() as string;
  for (const secretThing of [GITHUB_SECRET, key, '"opened"']) {
    expect(logged).not.toContain(secretThing);
  }
});

test('a stale Stripe timestamp is told as such, not as a wrong secret', async () => {
  const account = await accountOnPods(pods, 'stale');
  const hook = await createHook(pods.a, account.auth, 'pay', {
    verify: { scheme: 'stripe', secret: 'whsec_stripe_refusals' },
  });
  const t = Math.floor(Date.now() / 1000) - 412;
  const reply = await deliver(pods.a, hook.path, body, {
    'Stripe-Signature': stripeSignature('whsec_stripe_refusals', body, t),
  });
  expect(reply.status).toBe(401);
  expect(reply.body.errors[0].message).toMatch(
    /^webhook signature verification failed \(scheme stripe\): timestamp 41\d s old; at most 300 s; nothing was stored$/,
  );
});

test('an empty secret says so', async () => {
  const account = await accountOnPods(pods, 'empty');
  const res = await pods.a.http
    .post('/v1/relay/channels/x/webhooks')
    .set('Authorization', account.auth)
    .send({ verify: { scheme: 'github', secret: '' } });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(errorEnvelope(400, 'verify.secret is empty'));
});

test('forged deliveries never drain the account rate; past the URL bound they are 429', async () => {
  const account = await accountOnPods(pods, 'leak', { plan: 'tight' });
  const hook = await createHook(pods.a, account.auth, 'gh', {
    verify: { scheme: 'github', secret: GITHUB_SECRET },
  });
  const statuses: number[] = [];
  for (let i = 0; i < 60; i++) {
    statuses.push((await deliver(i % 2 ? pods.a : pods.b, hook.path, body)).status);
  }
  expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3);
  expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  const limited = await deliver(pods.a, hook.path, body);
  if (limited.status === 429) {
    expect(limited.body.errors[0].message).toMatch(
      /^too many refused deliveries to this webhook URL: at most 3 per second \(webhook_refusals_per_second\); the last: missing X-Hub-Signature-256 header; retry after \d+ s$/,
    );
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  }
  // the account's own traffic is untouched: its rate (5/s) was never counted by refusals
  expect((await account.ca.send('orders', { body: 1 })).status).toBe(200);
  // and a genuine delivery is still stored during the flood
  expect((await deliver(pods.b, hook.path, body, signed(body))).status).toBe(200);
});

test('record mode: a forged delivery never takes a genuine one dedup id', async () => {
  const account = await accountOnPods(pods, 'record');
  const hook = await createHook(pods.a, account.auth, 'gh', {
    verify: { scheme: 'github', secret: GITHUB_SECRET, on_failure: 'record' },
  });
  const delivery = { 'X-GitHub-Delivery': 'd-1' };
  const forged = await deliver(pods.a, hook.path, '{"forged":true}', {
    ...delivery,
    'X-Hub-Signature-256': 'sha256=00',
  });
  expect(forged.status).toBe(200);
  const genuine = await deliver(pods.b, hook.path, body, { ...delivery, ...signed(body) });
  expect(genuine.status).toBe(200);
  expect(genuine.body.result.id).not.toBe(forged.body.result.id);
  // the provider's retry of the genuine delivery is deduplicated against it
  const retry = await deliver(pods.a, hook.path, body, { ...delivery, ...signed(body) });
  expect(retry.body.result.id).toBe(genuine.body.result.id);
  const { messages } = await account.ca.pullOk('gh', { batch_size: 10 });
  expect(messages.map((m) => [m.body, hookMeta(m).verified])).toEqual([
    ['{"forged":true}', false],
    [body, true],
  ]);
  expect((messages[0].metadata as { webhook: { verify_failure: string } }).webhook).toMatchObject({
    verify_failure: 'signature does not match',
  });
});

test.each([
  ['NUL bytes', Buffer.alloc(50_000, 0)],
  ['control characters', Buffer.from('\u0001a\u0002b'.repeat(12_500))],
  ['quotes', Buffer.from('"\\'.repeat(25_000))],
  ['plain ASCII', Buffer.from('x'.repeat(50_000))],
])('a body of %s is charged at least 80 %% of what Redis grows by', async (_name, bytes) => {
  const account = await accountOnPods(pods, 'charge');
  const hook = await createHook(pods.a, account.auth, 'raw');
  const channelKey = `rq:{${account.id}}:c:raw:m`;
  expect((await deliver(pods.a, hook.path, bytes)).status).toBe(200);
  const charged = await storageBytes(pods.a, account.id);
  const used = Number(await pods.a.redis.call('MEMORY', 'USAGE', channelKey));
  expect(charged).toBeGreaterThanOrEqual(0.8 * used);
  // and the exact bytes come back
  const { messages } = await account.ca.pullOk('raw');
  const back =
    messages[0].content_type === 'bytes'
      ? Buffer.from(messages[0].body as string, 'base64')
      : Buffer.from(messages[0].body as string, 'utf8');
  expect(back.equals(bytes)).toBe(true);
});
