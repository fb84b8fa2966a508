/**
 * Upgrade requests are authenticated and validated like HTTP requests; a
 * refusal is a plain HTTP response with the envelope body, before any upgrade.
 */
import { accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, refusedUpgrade, subscribe } from '../../helpers/ws';

const rq = useRelay({
  listen: true,
  env: { RELAY_MAX_WS_CONNECTIONS_PER_TOKEN: '2' },
  account: 'acme',
});
afterEach(() => closeClients());

const single = (channel: string) => `/v1/relay/channels/${channel}/messages/subscribe`;
const ID_RULE = 'must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot';

function envelope(code: number, message: string) {
  return { success: false, errors: [{ code, message }], messages: [], result: null };
}

async function expectRefusal(
  path: string,
  headers: Record<string, string>,
  status: number,
  message: string,
) {
  const res = await refusedUpgrade(rq.app, path, headers);
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: envelope(status, message),
  });
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers.upgrade).toBeUndefined();
  return res;
}

describe('401: missing or bad token', () => {
  test.each([
    ['single', single('orders')],
    ['multi', '/v1/relay/subscribe?channels=orders'],
  ])('%s-channel subscription without a token', async (_kind, path) => {
    await expectRefusal(
      path,
      {},
      401,
      'missing Authorization header; send Authorization: Bearer <token>',
    );
  });

  test('malformed header, malformed token, unknown token: same answers as the HTTP API', async () => {
    const wrongSecret = rq.auth.replace(/^(Bearer rq_[0-9a-f]{16})./, (_m, head: string) =>
      rq.auth.charAt(head.length) === 'A' ? `${head}B` : `${head}A`,
    );
    const cases: [string, string][] = [
      ['Basic dXNlcjpwYXNz', 'malformed Authorization header; expected Bearer <token>'],
      ['Bearer not-a-token', 'invalid token'],
      [wrongSecret, 'invalid or revoked token'],
    ];
    for (const [header, message] of cases) {
      await expectRefusal(single('orders'), { Authorization: header }, 401, message);
      const http = await rq.app.http
        .post('/v1/relay/channels/orders/messages/pull')
        .set('Authorization', header)
        .send({});
      expect(http.status).toBe(401);
      expect(http.body).toEqual(envelope(401, message));
    }
  });

  test('a revoked token and an expired token are refused', async () => {
    const revoked = await accountWithToken(rq.app, 'acme');
    const del = await rq.app.http
      .delete(`/v1/admin/accounts/acme/tokens/${revoked.tokenId}`)
      .set('Authorization', 'Bearer test-admin-token-0123456789');
    expect(del.status).toBe(200);
    await expectRefusal(
      single('orders'),
      { Authorization: revoked.auth },
      401,
      'invalid or revoked token',
    );

    const expiring = await accountWithToken(rq.app, 'acme', { expires_in_seconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    await expectRefusal(
      '/v1/relay/subscribe?channels=orders',
      { Authorization: expiring.auth },
      401,
      'token has expired',
    );
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const sub = await subscribe(rq.app, single('orders'), rq.auth.replace(/^Bearer/, 'bEARER'));
    expect(sub.hello.type).toBe('subscribed');
  });
});

describe('403: the token may not use the channel', () => {
  test('a token scoped to other channels, on either endpoint', async () => {
    const scoped = await accountWithToken(rq.app, 'acme', { channels: ['orders'] });
    await expectRefusal(
      single('alerts'),
      { Authorization: scoped.auth },
      403,
      'this token may not use channel alerts',
    );
    await expectRefusal(
      '/v1/relay/subscribe?channels=orders,alerts',
      { Authorization: scoped.auth },
      403,
      'this token may not use channel alerts',
    );
    const ok = await subscribe(rq.app, '/v1/relay/subscribe?channels=orders', scoped.auth);
    expect(ok.hello).toMatchObject({ type: 'subscribed', channels: ['orders'] });
  });
});

describe('400: bad or missing channel ids', () => {
  test.each([
    ['a space', 'bad%20id'],
    ['a leading dot', '.hidden'],
    ['129 characters', 'x'.repeat(129)],
    ['a brace', '%7Bx%7D'],
    ['bad percent-encoding', '%E0%A4%A'],
  ])('single-channel id with %s', async (_what, channel) => {
    await expectRefusal(single(channel), { Authorization: rq.auth }, 400, `channelId ${ID_RULE}`);
  });

  test.each([
    ['absent', '/v1/relay/subscribe'],
    ['empty', '/v1/relay/subscribe?channels='],
    ['misspelt', '/v1/relay/subscribe?channel=orders'],
  ])('channels parameter %s', async (_what, path) => {
    await expectRefusal(
      path,
      { Authorization: rq.auth },
      400,
      'query parameter channels is required: a comma-separated list of channel ids',
    );
  });

  test('channels given twice', async () => {
    await expectRefusal(
      '/v1/relay/subscribe?channels=a&channels=b',
      { Authorization: rq.auth },
      400,
      'query parameter channels must be given once',
    );
  });

  test.each([
    ['a bad id in the list', 'orders,bad*id', 'bad*id'],
    ['an empty entry', 'orders,,alerts', ''],
    ['a trailing comma', 'orders,', ''],
  ])('multi-channel list with %s', async (_what, list, bad) => {
    await expectRefusal(
      `/v1/relay/subscribe?channels=${list}`,
      { Authorization: rq.auth },
      400,
      `channels: "${bad}" is not valid; a channel id ${ID_RULE}`,
    );
  });

  test('more than 100 channels; exactly 100 (after removing duplicates) is accepted', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `ch${i}`);
    await expectRefusal(
      `/v1/relay/subscribe?channels=${ids(101).join(',')}`,
      { Authorization: rq.auth },
      400,
      'channels must list at most 100 channel ids',
    );
    const sub = await subscribe(
      rq.app,
      `/v1/relay/subscribe?channels=${[...ids(100), 'ch0', 'ch1'].join(',')}`,
      rq.auth,
    );
    expect(sub.hello.channels).toEqual(ids(100));
  });
});

describe('404 and 429', () => {
  test.each([
    '/v1/relay/nope',
    '/v1/relay/channels/orders/subscribe',
    '/v1/relay/channels/orders/messages/subscribe/extra',
    '/v1/relay/channels/orders/messages',
  ])('unknown WebSocket path %s', async (path) => {
    await expectRefusal(path, { Authorization: rq.auth }, 404, `no such endpoint: GET ${path}`);
  });

  test('connections per token and pod past RELAY_MAX_WS_CONNECTIONS_PER_TOKEN', async () => {
    await subscribe(rq.app, single('orders'), rq.auth);
    await subscribe(rq.app, single('alerts'), rq.auth);
    const res = await expectRefusal(
      single('orders'),
      { Authorization: rq.auth },
      429,
      'this token already has 2 WebSocket connections on this server (RELAY_MAX_WS_CONNECTIONS_PER_TOKEN)',
    );
    expect(res.headers['retry-after']).toBe('5');
    // Another token of the same account has its own allowance.
    const other = await accountWithToken(rq.app, 'acme');
    await subscribe(rq.app, single('orders'), other.auth);
  });
});
