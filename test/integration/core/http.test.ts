/** The envelope on every response: unknown routes, wrong methods, internal errors. */
import { INTERNAL_MESSAGE } from '../../../src/errors';
import { expectError, path } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme', flush: false });

test('an unknown route is a 404 envelope', async () => {
  expectError(await rq.app.http.get('/nope'), 404, 'no such endpoint: GET /nope');
  expectError(
    await rq.app.http.post('/v1/relay/channels/orders/messages/peek').set('Authorization', rq.auth),
    404,
    'no such endpoint: POST /v1/relay/channels/orders/messages/peek',
  );
  expectError(
    await rq.app.http.post('/v2/relay/channels/orders/messages'),
    404,
    'no such endpoint: POST /v2/relay/channels/orders/messages',
  );
});

test.each([
  ['get', path('orders')],
  ['put', path('orders')],
  ['delete', path('orders')],
  ['patch', path('orders', '/batch')],
  ['get', path('orders', '/pull')],
  ['put', path('orders', '/ack')],
] as const)('%s %s is a 405 with Allow: POST', async (method, url) => {
  const res = await rq.app.http[method](url).set('Authorization', rq.auth);
  expectError(res, 405, `method ${method.toUpperCase()} is not allowed here; use POST`);
  expect(res.headers.allow).toBe('POST');
});

test('every response is application/json: 200, 400, 401, 404, 405, 413', async () => {
  const responses = [
    await rq.app.http.post(path('orders')).set('Authorization', rq.auth).send({ body: 1 }),
    await rq.app.http.post(path('orders')).set('Authorization', rq.auth).send({}),
    await rq.app.http.post(path('orders')),
    await rq.app.http.get('/'),
    await rq.app.http.get(path('orders')),
    await rq.app.http
      .post(path('orders'))
      .set('Authorization', rq.auth)
      .set('Content-Type', 'application/json')
      .send(`{"body":"${'a'.repeat(1_048_577)}"}`),
  ];
  expect(responses.map((r) => r.status)).toEqual([200, 400, 401, 404, 405, 413]);
  for (const res of responses) {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(expect.objectContaining({ messages: [] }));
  }
});

test('a 500 is an envelope with a generic message: no stack, no internals', async () => {
  const queue = rq.app.relay.store.queue;
  const original = queue.send;
  queue.send = async () => {
    throw new TypeError('boom at /srv/relayq/src/store/queue.ts:42 secret=hunter2');
  };
  try {
    const res = await rq.app.http
      .post(path('orders'))
      .set('Authorization', rq.auth)
      .send({ body: 1 });
    expectError(res, 500, INTERNAL_MESSAGE);
    expect(res.text).not.toMatch(/boom|queue\.ts|hunter2|TypeError|at /);
  } finally {
    queue.send = original;
  }
  expect(
    (await rq.app.http.post(path('orders')).set('Authorization', rq.auth).send({ body: 1 })).status,
  ).toBe(200);
});

test('a path with broken percent-encoding is a 400 envelope', async () => {
  const res = await rq.app.http
    .post('/v1/relay/channels/%E0%A4%A/messages')
    .set('Authorization', rq.auth)
    .send({ body: 1 });
  expectError(res, 400, 'request path is not valid percent-encoding');
});

test('HEAD and OPTIONS on a POST-only route are 405 with Allow: POST', async () => {
  for (const method of ['head', 'options'] as const) {
    const res = await rq.app.http[method](path('orders')).set('Authorization', rq.auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  }
});
