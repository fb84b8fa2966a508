/**
 * Signatures computed here exactly as each provider computes them (GitHub,
 * Stripe, Standard Webhooks / Svix, Shopify-style generic HMAC), good, bad,
 * stale and missing, in both failure modes; and provider retries deduplicated.
 */
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { errorEnvelope } from '../../helpers/relayClient';
import {
  createHook,
  deliver,
  hmacBase64,
  hmacHex,
  hookMeta,
  listenOnPods,
  nowSeconds,
  standardHeaders,
  stripeSignature,
} from './hooks';

const pods = useTwoPods();
listenOnPods(pods);

const GITHUB_SECRET = "It's a Secret to Everybody";
const STRIPE_SECRET = 'whsec_stripe_test_secret';
const SW_SECRET = `whsec_${Buffer.from('standard webhooks signing key!').toString('base64')}`;
const SHOPIFY_SECRET = 'shpss_0123456789abcdef';

async function hookWith(verify: object, extra: object = {}) {
  const account = await accountOnPods(pods, 'wv');
  const hook = await createHook(pods.a, account.auth, 'events', { verify, ...extra });
  const stored = async () => (await account.ca.pullOk('events')).messages;
  return { ...account, hook, stored };
}

const NO_MATCH = 'signature does not match';

/** A refusal whose reason names a timestamp's age, which moves with the clock. */
const staleRejected = (scheme: string, ahead = false) => ({
  status: 401,
  body: {
    ...errorEnvelope(401, ''),
    errors: [
      {
        code: 401,
        message: expect.stringMatching(
          new RegExp(
            `^webhook signature verification failed \\(scheme ${scheme}\\): timestamp 3\\d\\d s ${ahead ? 'in the future' : 'old'}; at most 300 s; nothing was stored$`,
          ),
        ),
      },
    ],
  },
});

const rejected = (scheme: string, reason: string) => ({
  status: 401,
  body: errorEnvelope(
    401,
    `webhook signature verification failed (scheme ${scheme}): ${reason}; nothing was stored`,
  ),
});

describe('github', () => {
  const body = '{"zen":"Keep it logically awesome.","hook_id":1}';
  const good = { 'X-Hub-Signature-256': `sha256=${hmacHex(GITHUB_SECRET, body)}` };

  test('a good signature is stored verified; bad and missing ones are 401 and store nothing', async () => {
    const { hook, stored } = await hookWith({ scheme: 'github', secret: GITHUB_SECRET });
    expect((await deliver(pods.a, hook.path, body, good)).status).toBe(200);
    const bad = { 'X-Hub-Signature-256': `sha256=${hmacHex('wrong', body)}` };
    expect(await deliver(pods.a, hook.path, body, bad)).toEqual(rejected('github', NO_MATCH));
    expect(await deliver(pods.a, hook.path, body)).toEqual(
      rejected('github', 'missing X-Hub-Signature-256 header'),
    );
    // the same signature over other bytes (re-serialised JSON) fails
    expect(await deliver(pods.a, hook.path, body.replace(':', ': '), good)).toEqual(
      rejected('github', NO_MATCH),
    );
    const messages = await stored();
    expect(messages).toHaveLength(1);
    expect(messages[0].body).toBe(body);
    expect(hookMeta(messages[0]).verified).toBe(true);
  });

  test('on_failure record stores failures with verified false', async () => {
    const { hook, stored } = await hookWith({
      scheme: 'github',
      secret: GITHUB_SECRET,
      on_failure: 'record',
    });
    expect((await deliver(pods.a, hook.path, body, good)).status).toBe(200);
    expect(
      (await deliver(pods.a, hook.path, body, { 'X-Hub-Signature-256': 'sha256=00' })).status,
    ).toBe(200);
    expect((await deliver(pods.a, hook.path, body)).status).toBe(200);
    expect((await stored()).map((m) => hookMeta(m).verified)).toEqual([true, false, false]);
  });

  test('a redelivery (same X-GitHub-Delivery) answers the first id and stores nothing', async () => {
    const { hook, stored } = await hookWith({ scheme: 'github', secret: GITHUB_SECRET });
    const headers = { ...good, 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
    const first = await deliver(pods.a, hook.path, body, headers);
    const retry = await deliver(pods.b, hook.path, body, headers);
    expect(retry.status).toBe(200);
    expect(retry.body.result.id).toBe(first.body.result.id);
    const other = await deliver(pods.b, hook.path, body, { ...headers, 'X-GitHub-Delivery': 'x2' });
    expect(other.body.result.id).not.toBe(first.body.result.id);
    expect((await stored()).map((m) => m.id)).toEqual([first.body.result.id, other.body.result.id]);
  });
});

describe('stripe', () => {
  const body = '{\n  "id": "evt_1NG8Du2eZvKYlo2CUI79vXWy",\n  "object": "event"\n}';

  test('good, several v1 (any match), bad, stale and missing signatures', async () => {
    const { hook, stored } = await hookWith({ scheme: 'stripe', secret: STRIPE_SECRET });
    const t = nowSeconds();
    const ok = await deliver(pods.a, hook.path, body, {
      'Stripe-Signature': stripeSignature(STRIPE_SECRET, body, t),
    });
    expect(ok.status).toBe(200);
    const rolled = `t=${t},v1=${hmacHex('old secret', `${t}.${body}`)},v1=${hmacHex(STRIPE_SECRET, `${t}.${body}`)},v0=abc`;
    const body2 = body.replace('Wy', 'Wz');
    const rolled2 = rolled.replace(
      hmacHex(STRIPE_SECRET, `${t}.${body}`),
      hmacHex(STRIPE_SECRET, `${t}.${body2}`),
    );
    expect((await deliver(pods.a, hook.path, body2, { 'Stripe-Signature': rolled2 })).status).toBe(
      200,
    );
    expect(
      await deliver(pods.a, hook.path, body, {
        'Stripe-Signature': stripeSignature('wrong', body, t),
      }),
    ).toEqual(rejected('stripe', NO_MATCH));
    expect(
      await deliver(pods.a, hook.path, body, {
        'Stripe-Signature': stripeSignature(STRIPE_SECRET, body, t - 301),
      }),
    ).toEqual(staleRejected('stripe'));
    expect(
      await deliver(pods.a, hook.path, body, {
        'Stripe-Signature': stripeSignature(STRIPE_SECRET, body, t + 360),
      }),
    ).toEqual(staleRejected('stripe', true));
    expect(await deliver(pods.a, hook.path, body)).toEqual(
      rejected('stripe', 'missing Stripe-Signature header'),
    );
    expect((await stored()).map((m) => m.body)).toEqual([body, body2]);
  });

  test('a retried event (same top-level "id" of the JSON body) is not stored twice', async () => {
    const { hook, stored } = await hookWith({
      scheme: 'stripe',
      secret: STRIPE_SECRET,
      on_failure: 'record',
    });
    const first = await deliver(pods.a, hook.path, body, {
      'Stripe-Signature': stripeSignature(STRIPE_SECRET, body),
    });
    // Stripe signs each attempt anew: another t, same event id
    const retry = await deliver(pods.b, hook.path, body, {
      'Stripe-Signature': stripeSignature(STRIPE_SECRET, body, nowSeconds() - 5),
    });
    expect(retry.body.result.id).toBe(first.body.result.id);
    // an unverified delivery (here: stale) is recorded apart: it neither matches nor takes
    // the event's dedup id, so that a forgery can never take a genuine delivery's place
    const stale = await deliver(pods.a, hook.path, body, {
      'Stripe-Signature': stripeSignature(STRIPE_SECRET, body, nowSeconds() - 1000),
    });
    expect(stale.body.result.id).not.toBe(first.body.result.id);
    const messages = await stored();
    expect(messages.map((m) => hookMeta(m).verified)).toEqual([true, false]);
  });
});

describe('standard-webhooks', () => {
  const body = '{"type":"invoice.paid","data":{"id":1}}';

  test('webhook-* and svix-* names, several signatures, bad, stale and missing', async () => {
    const { hook, stored } = await hookWith({ scheme: 'standard-webhooks', secret: SW_SECRET });
    expect(
      (await deliver(pods.a, hook.path, body, standardHeaders(SW_SECRET, 'msg_1', body))).status,
    ).toBe(200);
    expect(
      (
        await deliver(
          pods.a,
          hook.path,
          body,
          standardHeaders(SW_SECRET, 'msg_2', body, nowSeconds(), 'svix'),
        )
      ).status,
    ).toBe(200);
    const several = standardHeaders(SW_SECRET, 'msg_3', body);
    several['webhook-signature'] =
      `v1,${hmacBase64('other', 'x')} v2,abc ${several['webhook-signature']}`;
    expect((await deliver(pods.a, hook.path, body, several)).status).toBe(200);

    const wrongKey = standardHeaders(
      `whsec_${Buffer.from('other').toString('base64')}`,
      'msg_4',
      body,
    );
    expect(await deliver(pods.a, hook.path, body, wrongKey)).toEqual(
      rejected('standard-webhooks', NO_MATCH),
    );
    const stale = standardHeaders(SW_SECRET, 'msg_5', body, nowSeconds() - 301);
    expect(await deliver(pods.a, hook.path, body, stale)).toEqual(
      staleRejected('standard-webhooks'),
    );
    // the id is signed: changing it breaks the signature
    const moved = { ...standardHeaders(SW_SECRET, 'msg_6', body), 'webhook-id': 'msg_7' };
    expect(await deliver(pods.a, hook.path, body, moved)).toEqual(
      rejected('standard-webhooks', NO_MATCH),
    );
    expect(await deliver(pods.a, hook.path, body)).toEqual(
      rejected('standard-webhooks', 'missing webhook-id header'),
    );
    expect(
      (await stored()).map(
        (m) => hookMeta(m).headers['webhook-id'] ?? hookMeta(m).headers['svix-id'],
      ),
    ).toEqual(['msg_1', 'msg_2', 'msg_3']);
  });

  test('on_failure record: stale, bad and missing signatures are stored with verified false', async () => {
    const { hook, stored } = await hookWith({
      scheme: 'standard-webhooks',
      secret: SW_SECRET,
      on_failure: 'record',
    });
    const cases = [
      standardHeaders(SW_SECRET, 'm_good', body),
      standardHeaders(SW_SECRET, 'm_stale', body, nowSeconds() - 400),
      standardHeaders(`whsec_${Buffer.from('nope').toString('base64')}`, 'm_bad', body),
      { 'webhook-id': 'm_missing' },
    ];
    for (const headers of cases) {
      expect((await deliver(pods.a, hook.path, body, headers)).status).toBe(200);
    }
    expect(
      (await stored()).map((m) => [hookMeta(m).headers['webhook-id'], hookMeta(m).verified]),
    ).toEqual([
      ['m_good', true],
      ['m_stale', false],
      ['m_bad', false],
      ['m_missing', false],
    ]);
  });

  test('a retry (same webhook-id, new timestamp and signature) is deduplicated', async () => {
    const { hook, stored } = await hookWith({ scheme: 'standard-webhooks', secret: SW_SECRET });
    const first = await deliver(pods.a, hook.path, body, standardHeaders(SW_SECRET, 'msg_r', body));
    const retry = await deliver(
      pods.b,
      hook.path,
      body,
      standardHeaders(SW_SECRET, 'msg_r', body, nowSeconds() - 3),
    );
    expect(retry.status).toBe(200);
    expect(retry.body.result.id).toBe(first.body.result.id);
    expect(await stored()).toHaveLength(1);
  });
});

describe('hmac-sha256 (generic)', () => {
  const body = '{"id":820982911946154508,"email":"jon@example.com"}';

  test('Shopify style: base64 in X-Shopify-Hmac-Sha256, no prefix', async () => {
    const { hook, stored } = await hookWith({
      scheme: 'hmac-sha256',
      secret: SHOPIFY_SECRET,
      header: 'X-Shopify-Hmac-Sha256',
      encoding: 'base64',
    });
    const good = { 'X-Shopify-Hmac-Sha256': hmacBase64(SHOPIFY_SECRET, body) };
    expect((await deliver(pods.a, hook.path, body, good)).status).toBe(200);
    const hex = { 'X-Shopify-Hmac-Sha256': hmacHex(SHOPIFY_SECRET, body) };
    expect(await deliver(pods.a, hook.path, body, hex)).toEqual(rejected('hmac-sha256', NO_MATCH));
    expect(await deliver(pods.a, hook.path, `${body} `, good)).toEqual(
      rejected('hmac-sha256', NO_MATCH),
    );
    expect(await deliver(pods.a, hook.path, body)).toEqual(
      rejected('hmac-sha256', 'missing x-shopify-hmac-sha256 header'),
    );
    expect(await stored()).toHaveLength(1);
  });

  test('hex with a prefix, on_failure record, and a configured dedup_header', async () => {
    const { hook, stored } = await hookWith(
      {
        scheme: 'hmac-sha256',
        secret: 'generic',
        header: 'X-Signature',
        encoding: 'hex',
        prefix: 'sha256=',
        on_failure: 'record',
      },
      { dedup_header: 'X-Request-Id' },
    );
    const sig = { 'X-Signature': `sha256=${hmacHex('generic', body)}` };
    const a = await deliver(pods.a, hook.path, body, { ...sig, 'X-Request-Id': 'r1' });
    const again = await deliver(pods.a, hook.path, body, { ...sig, 'X-Request-Id': 'r1' });
    expect(again.body.result.id).toBe(a.body.result.id);
    await deliver(pods.a, hook.path, body, {
      'X-Signature': hmacHex('generic', body),
      'X-Request-Id': 'r2',
    });
    expect((await stored()).map((m) => hookMeta(m).verified)).toEqual([true, false]);
  });
});

test('without verify, verified is null and dedup_header still deduplicates', async () => {
  const account = await accountOnPods(pods, 'wv');
  const hook = await createHook(pods.a, account.auth, 'plain', { dedup_header: 'Idempotency-Key' });
  const a = await deliver(pods.a, hook.path, 'x', { 'Idempotency-Key': 'k1' });
  const b = await deliver(pods.b, hook.path, 'y', { 'Idempotency-Key': 'k1' });
  const c = await deliver(pods.b, hook.path, 'z');
  expect(b.body.result.id).toBe(a.body.result.id);
  expect(c.body.result.id).not.toBe(a.body.result.id);
  const { messages } = await account.ca.pullOk('plain');
  expect(messages.map((m) => [m.body, hookMeta(m).verified])).toEqual([
    ['x', null],
    ['z', null],
  ]);
});
