/**
 * Fresh provider signatures for the pull consumers (relayq forward, the SDK's forward()): a
 * Stripe- and a Standard-Webhooks-signed delivery verified on arrival and forwarded 7 s later
 * is accepted by the providers' own libraries (stripe.webhooks.constructEvent, standardwebhooks'
 * verify) with a 5 s tolerance; the server signs at pull time, the secret never leaves it. A
 * message sent with forged webhook metadata is not signed.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { RelayClient, forward, type Consumer } from '@relayq/client';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { eventually, sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { createHook, deliver, hookMeta, standardHeaders, stripeSignature } from './hooks';

const STRIPE_SECRET = 'whsec_stripe_replay_test_0123456789';
const SW_SECRET = `whsec_${crypto.randomBytes(24).toString('base64')}`;
const stripe = new Stripe('sk_test_replay');

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

const rq = useRelay({ listen: true, account: 'replay' });
let server: http.Server;
let target = '';
const received: Received[] = [];
let consumer: Consumer | null = null;
/** the receiver answers 500 to this many requests first */
let failFirst = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      });
      if (failFirst > 0) {
        failFirst--;
        res.statusCode = 500;
      }
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(async () => {
  await consumer?.stop({ timeoutMs: 2000 });
  consumer = null;
  received.length = 0;
  failFirst = 0;
});

const headerObject = (h: http.IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

test('Stripe and Standard Webhooks deliveries forwarded 7 s after arrival pass the providers’ libraries (5 s tolerance)', async () => {
  const stripeHook = await createHook(rq.app, rq.auth, 'pay', {
    verify: { scheme: 'stripe', secret: STRIPE_SECRET },
  });
  const swHook = await createHook(rq.app, rq.auth, 'pay', {
    verify: { scheme: 'standard-webhooks', secret: SW_SECRET },
  });
  const event = '{"id":"evt_1","object":"event","type":"charge.succeeded"}';
  const originalStripe = stripeSignature(STRIPE_SECRET, event);
  expect(
    (
      await deliver(rq.app, stripeHook.path, event, {
        'Content-Type': 'application/json',
        'Stripe-Signature': originalStripe,
      })
    ).status,
  ).toBe(200);
  const swBody = '{"type":"invoice.paid","n":2}';
  const originalSw = standardHeaders(SW_SECRET, 'msg_2', swBody);
  expect(
    (
      await deliver(rq.app, swHook.path, swBody, {
        'Content-Type': 'application/json',
        ...originalSw,
      })
    ).status,
  ).toBe(200);
  // the laptop was closed: the original signatures are now older than the tolerance
  await sleep(7000);
  expect(() => stripe.webhooks.constructEvent(event, originalStripe, STRIPE_SECRET, 5)).toThrow();

  const client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
  consumer = forward(client, 'pay', `${target}/hook`, { concurrency: 1 });
  await eventually(() => received.length === 2, 10_000);
  const [s, w] = received;

  expect(s.body.toString()).toBe(event);
  const stripeHeader = String(s.headers['stripe-signature']);
  expect(stripeHeader).not.toBe(originalStripe);
  const parsed = stripe.webhooks.constructEvent(s.body, stripeHeader, STRIPE_SECRET, 5);
  expect(parsed).toMatchObject({ id: 'evt_1', type: 'charge.succeeded' });
  expect(s.headers['x-relayq-original-stripe-signature']).toBe(originalStripe);

  expect(w.body.toString()).toBe(swBody);
  const headers = headerObject(w.headers);
  expect(headers['webhook-id']).toBe('msg_2');
  expect(Math.abs(Date.now() / 1000 - Number(headers['webhook-timestamp']))).toBeLessThanOrEqual(5);
  expect(new Webhook(SW_SECRET).verify(w.body.toString(), headers)).toEqual(JSON.parse(swBody));
  expect(headers['x-relayq-original-webhook-signature']).toBe(originalSw['webhook-signature']);
  expect(headers['x-relayq-original-webhook-timestamp']).toBe(originalSw['webhook-timestamp']);
}, 30_000);

test('a pull signs afresh only what came through the webhook URL: forged webhook metadata is not signed', async () => {
  const hook = await createHook(rq.app, rq.auth, 'pay', {
    verify: { scheme: 'stripe', secret: STRIPE_SECRET },
  });
  const client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
  const forged = '{"id":"evt_forged","type":"payout.paid"}';
  await client.send('pay', {
    body: forged,
    contentType: 'text',
    metadata: {
      webhook: {
        id: hook.id,
        method: 'POST',
        query: '',
        headers: { 'stripe-signature': 't=1,v1=00' },
        verified: true,
        replay_seal: 'AAAA',
      },
    },
  });
  const pulled = await rq.client.pull('pay', { batch_size: 10 });
  const [m] = pulled.body.result.messages;
  expect(hookMeta(m).headers).toEqual({ 'stripe-signature': 't=1,v1=00' });
  expect(() =>
    stripe.webhooks.constructEvent(forged, hookMeta(m).headers['stripe-signature'], STRIPE_SECRET),
  ).toThrow();

  // a genuine delivery pulled twice is signed each time for the time of the pull
  const event = '{"id":"evt_3"}';
  await deliver(rq.app, hook.path, event, {
    'Stripe-Signature': stripeSignature(STRIPE_SECRET, event),
  });
  const first = (await rq.client.pull('pay', { batch_size: 10, visibility_timeout_ms: 1000 })).body
    .result.messages[0];
  const firstSig = hookMeta(first).headers['stripe-signature'];
  await sleep(2100);
  const again = (await rq.client.pull('pay', { batch_size: 10 })).body.result.messages.find(
    (x: { id: string }) => x.id === first.id,
  );
  const againSig = hookMeta(again).headers['stripe-signature'];
  expect(againSig).not.toBe(firstSig);
  expect(stripe.webhooks.constructEvent(event, againSig, STRIPE_SECRET, 1)).toMatchObject({
    id: 'evt_3',
  });
});

test('forward retrying a delivery it holds sends it signed afresh (7 s later, 5 s tolerance); other messages are refused', async () => {
  const hook = await createHook(rq.app, rq.auth, 'held', {
    verify: { scheme: 'stripe', secret: STRIPE_SECRET },
  });
  const event = '{"id":"evt_held","type":"charge.refunded"}';
  const original = stripeSignature(STRIPE_SECRET, event);
  await deliver(rq.app, hook.path, event, { 'Stripe-Signature': original });
  // the pull's signature then differs from the received one (another second)
  await sleep(1100);
  failFirst = 1;
  const client = new RelayClient({ url: rq.app.baseUrl, token: rq.token });
  consumer = forward(client, 'held', `${target}/hook`, { retrySchedule: [0, 7] });
  await eventually(() => received.length === 2, 15_000);
  const [first, retry] = received;
  expect(retry.at - first.at).toBeGreaterThanOrEqual(6500);
  expect(retry.headers['x-relayq-attempts']).toBe('2');
  expect(String(retry.headers['stripe-signature'])).not.toBe(
    String(first.headers['stripe-signature']),
  );
  expect(
    stripe.webhooks.constructEvent(
      retry.body,
      String(retry.headers['stripe-signature']),
      STRIPE_SECRET,
      5,
    ),
  ).toMatchObject({ id: 'evt_held' });
  // signed again, the received header is still the one kept
  expect(first.headers['x-relayq-original-stripe-signature']).toBe(original);
  expect(first.headers['stripe-signature']).not.toBe(original);
  expect(retry.headers['x-relayq-original-stripe-signature']).toBe(original);

  // only a sealed delivery is signed again
  const refused = await rq.app.http
    .post('/v1/relay/channels/held/webhooks/signatures')
    .set('Authorization', rq.auth)
    .send({
      message: {
        id: '7f0c1d1e-0000-4000-8000-000000000000',
        body: '{"id":"evt_forged"}',
        content_type: 'text',
        metadata: { webhook: { id: hook.id, headers: {}, replay_seal: 'AAAA' } },
      },
    });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].message).toContain('replay_seal');
}, 30_000);
