import { buildOpenApi } from '../../src/openapi/document';
import { OPERATIONS } from '../../src/openapi/operations';
import { accountWithToken } from '../helpers/app';
import { useRelay } from '../helpers/useRelay';

const rq = useRelay({ flush: false });

test('send, pull and ack one message', async () => {
  const { auth } = await accountWithToken(rq.app, 'acme');
  const sent = await rq.app.http
    .post('/v1/relay/channels/orders/messages')
    .set('Authorization', auth)
    .send({ body: { n: 1 } });
  expect(sent.status).toBe(200);
  const pulled = await rq.app.http
    .post('/v1/relay/channels/orders/messages/pull')
    .set('Authorization', auth)
    .send({});
  expect(pulled.body.result.messages).toHaveLength(1);
  expect(pulled.body.result.messages[0].id).toBe(sent.body.result.id);
  const acked = await rq.app.http
    .post('/v1/relay/channels/orders/messages/ack')
    .set('Authorization', auth)
    .send({ lease_ids: [pulled.body.result.messages[0].lease_id] });
  expect(acked.body).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { acked_count: 1 },
  });
});

test('GET /v1/openapi.json serves the OpenAPI document without auth, as JSON', async () => {
  const res = await rq.app.http.get('/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  // the built document, with this relay's address as its server
  const { servers, ...served } = res.body;
  const { servers: _committed, ...built } = buildOpenApi();
  expect(served).toEqual(built);
  expect(servers).toEqual([
    { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), description: 'this relay' },
  ]);
});

test('no documented endpoint is missing from the app (none answers "no such endpoint")', async () => {
  const missing: string[] = [];
  for (const op of OPERATIONS) {
    if (op.path === '/v1/relay/subscribe') continue; // WebSocket only: no HTTP route at all
    const path = op.path.replace(/\{\w+\}/g, (p) => (p === '{tokenId}' ? '0123456789abcdef' : 'x'));
    const res = await rq.app.http[op.method](path).send(op.request ? {} : undefined);
    if (res.status === 404 && /^no such endpoint/.test(res.body.errors?.[0]?.message ?? '')) {
      missing.push(`${op.method.toUpperCase()} ${op.path}`);
    }
  }
  expect(missing).toEqual([]);
});
