/**
 * Bad input, property-based (fast-check): random and adversarial bodies,
 * headers, path segments and query strings at every endpoint. The answer is
 * always the JSON envelope with 200 or a 4xx (never a 5xx, never a crash), and
 * a refused request changes nothing in Redis (every key DUMPed before and after).
 */
import fc from 'fast-check';
import request from 'supertest';
import { ADMIN_TOKEN, accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { refusedUpgrade } from '../../helpers/ws';

jest.setTimeout(60_000);

// The sweeper stays out of the way: Redis changes only through requests.
// thousands of operator requests a second: the operator API's own rate limit is off here
const rq = useRelay({
  listen: true,
  env: { RELAY_SWEEP_INTERVAL_MS: '60000', RELAY_ADMIN_RATE_LIMIT_PER_SECOND: '0' },
  flush: false,
});
let auth: string;
let client: ReturnType<typeof request>;

const RUNS = 100;
const ENVELOPE_STATUSES = [200, 400, 401, 403, 404, 405, 409, 413, 415];

// two accounts, and a channel with a queued, a delayed and a leased message
beforeAll(async () => {
  client = request(rq.app.baseUrl);
  ({ auth } = await accountWithToken(rq.app, 'acme', { plan: 'paid' }));
  await accountWithToken(rq.app, 'other');
  const base = '/v1/relay/channels/orders/messages';
  await client
    .post(`${base}/batch`)
    .set('Authorization', auth)
    .send({
      messages: [
        { body: 1 },
        { body: 'two', metadata: { k: 'v' } },
        { body: 3, delay_seconds: 3600 },
      ],
    });
  await client
    .post(`${base}/pull`)
    .set('Authorization', auth)
    .send({ batch_size: 1, visibility_timeout_ms: 3_600_000 });
  await client
    .put('/v1/relay/channels/orders')
    .set('Authorization', auth)
    .send({ max_attempts: 5 });
});

/**
 * Every key and its content, read by type (DUMP is not stable: a read may take
 * a rehash step that reorders a hash table), across all masters.
 */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await rq.redis.eachMaster(async (node) => {
    // The backlog gauges (rq:{~sys}:gauge*) are folded in the background from the
    // state read here: derived, and written whenever a pod folds, not by a request; the
    // sweeper's partition leases (rq:{~dueN}:owner, :pods) are renewed by its own timer.
    const background = (k: string) =>
      k.startsWith('rq:{~sys}:gauge') || /^rq:\{~due\d+\}:(owner|pods)$/.test(k);
    const keys = (await node.keys('*')).filter((k) => !background(k)).sort();
    if (keys.length === 0) return;
    const types = (await node.pipeline(keys.map((k) => ['type', k])).exec()) ?? [];
    const reads = keys.map((key, i) => {
      switch (types[i][1]) {
        case 'string':
          return ['get', key];
        case 'hash':
          return ['hgetall', key];
        case 'zset':
          return ['zrange', key, '0', '-1', 'WITHSCORES'];
        case 'set':
          return ['smembers', key];
        case 'list':
          return ['lrange', key, '0', '-1'];
        default:
          return ['dump', key];
      }
    });
    const values = (await node.pipeline(reads).exec()) ?? [];
    keys.forEach((key, i) => {
      let value = values[i][1];
      if (Array.isArray(value) && types[i][1] === 'set') value = [...value].sort();
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        // 'n:<channel>' fields record coalesced announcements, which an earlier
        // accepted send's window end may publish at any moment
        const entries = Object.entries(value).filter(([field]) => !field.startsWith('n:'));
        value = Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
      }
      out.set(key, `${types[i][1]} ${JSON.stringify(value)}`);
    });
  });
  return out;
}

function expectEnvelope(res: request.Response): void {
  expect(ENVELOPE_STATUSES).toContain(res.status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  expect(typeof body.success).toBe('boolean');
  expect(body.messages).toEqual([]);
  if (res.status === 200) {
    expect(body.success).toBe(true);
    expect(body.errors).toEqual([]);
  } else {
    expect(body).toEqual({
      success: false,
      errors: [{ code: res.status, message: expect.any(String) }],
      messages: [],
      result: null,
    });
    const message = (body.errors as { message: string }[])[0].message;
    expect(message.length).toBeGreaterThan(0);
    expect(message.length).toBeLessThan(600);
    expect(message).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|ReplyError|ERR /);
  }
}

/** Runs the request; a refusal must leave every key as it was. */
async function checkRefusalChangesNothing(
  send: () => Promise<request.Response>,
): Promise<request.Response> {
  const before = await snapshot();
  const res = await send();
  expectEnvelope(res);
  if (res.status !== 200) {
    const after = await snapshot();
    expect(after).toEqual(before);
  }
  return res;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Endpoint {
  method: Method;
  path: string;
  admin?: boolean;
  fields: string[];
}

const mb = '/v1/relay/channels/orders/messages';
const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: mb,
    fields: ['body', 'content_type', 'delay_seconds', 'metadata', 'dedup_id'],
  },
  { method: 'post', path: `${mb}/batch`, fields: ['messages', 'delay_seconds'] },
  {
    method: 'post',
    path: `${mb}/pull`,
    fields: ['visibility_timeout_ms', 'batch_size', 'wait_ms'],
  },
  { method: 'post', path: `${mb}/ack`, fields: ['lease_ids', 'retries'] },
  { method: 'post', path: `${mb}/extend`, fields: ['lease_ids', 'visibility_timeout_ms'] },
  { method: 'post', path: `${mb}/redrive`, fields: ['to', 'max'] },
  { method: 'get', path: '/v1/relay/channels', fields: [] },
  { method: 'get', path: '/v1/relay/channels/orders', fields: [] },
  {
    method: 'put',
    path: '/v1/relay/channels/orders',
    fields: ['max_attempts', 'dedup_window_seconds', 'dead_letter_channel'],
  },
  { method: 'post', path: '/v1/admin/accounts', admin: true, fields: ['id', 'plan'] },
  { method: 'get', path: '/v1/admin/accounts/acme', admin: true, fields: [] },
  { method: 'patch', path: '/v1/admin/accounts/other', admin: true, fields: ['plan'] },
  {
    method: 'post',
    path: '/v1/admin/accounts/other/tokens',
    admin: true,
    fields: ['name', 'channels', 'expires_in_seconds'],
  },
];

const adversarialValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    -1,
    0,
    0.5,
    1e21,
    -0,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    ' ',
    '\u0000',
    'a'.repeat(300),
    '..',
    '__proto__',
    [],
    [[[]]],
    {},
    { __proto__: null, constructor: 1 },
    true,
    '86401',
    86401,
    43200001,
    101,
  ),
);

/** A JSON object of the endpoint's own field names (and a few hostile ones) with hostile values. */
function fieldBody(fields: string[]): fc.Arbitrary<string> {
  const names = fc.constantFrom(...fields, '__proto__', 'constructor', 'prototype', 'body', 'x');
  return fc
    .array(fc.tuple(names, adversarialValue), { maxLength: 5 })
    .map(
      (pairs) =>
        `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
    );
}

/** Raw texts that JSON.stringify cannot produce. */
const RAW = [
  '{"body":1e309}',
  '{"batch_size":-1e309}',
  '{"body":1,"body":2}',
  '{"__proto__":{"polluted":true},"body":1}',
  '{"body":{"__proto__":{"polluted":true}}}',
  '{"body":1,"metadata":{"__proto__":{"polluted":true}}}',
  '{"body":"\\ud800"}',
  '{"body":',
  '{"body":1}}',
  '[]',
  'null',
  '"just a string"',
  '1',
  'true',
  '\ufeff{"body":1}',
  `${'['.repeat(200)}${']'.repeat(200)}`,
  `{"body":${'['.repeat(129)}${']'.repeat(129)}}`,
  `{"body":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
];

const bodyArb: fc.Arbitrary<Buffer> = fc.oneof(
  fc.json({ maxDepth: 4 }).map((s) => Buffer.from(s)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify({ body: v }) ?? '')),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
  fc.fullUnicodeString({ maxLength: 100 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc.constantFrom(...RAW).map((s) => Buffer.from(s)),
  fc
    .tuple(fc.constantFrom('{"body":"', '{"x":"'), fc.uint8Array({ minLength: 1, maxLength: 20 }))
    .map(([head, bytes]) =>
      Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from('"}')]),
    ),
);

function authFor(endpoint: Endpoint): string {
  return endpoint.admin ? `Bearer ${ADMIN_TOKEN}` : auth;
}

function call(endpoint: Endpoint, path = endpoint.path): request.Test {
  return client[endpoint.method](path);
}

describe.each(ENDPOINTS.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))(
  '%s',
  (_name, endpoint) => {
    test('random and adversarial bodies: envelope, 200 or 4xx, refusals change nothing', async () => {
      const arb = fc.oneof(
        bodyArb,
        fieldBody(endpoint.fields).map((s) => Buffer.from(s)),
      );
      await fc.assert(
        fc.asyncProperty(
          arb,
          fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', ''),
          async (body, type) => {
            const req = call(endpoint).set('Authorization', authFor(endpoint));
            if (type) req.set('Content-Type', type);
            await checkRefusalChangesNothing(() => req.send(body));
          },
        ),
        { numRuns: RUNS },
      );
    });
  },
);

test('random channel ids in the path, percent-encoded or raw: 200 or a 4xx envelope', async () => {
  const segment = fc.oneof(
    fc.string({ minLength: 1, maxLength: 140 }).map(encodeURIComponent),
    fc.fullUnicodeString({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom(
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%AF',
      '%00',
      '..',
      '.',
      '.hidden',
      '%2F',
      'a%2Fb',
      '%2e%2e',
      'x'.repeat(129),
      'x'.repeat(128),
      '%F0%9F%92%A9',
      '~',
      'a:b',
      '%7B%7D',
    ),
  );
  const suffix = fc.constantFrom(
    '',
    '/batch',
    '/pull',
    '/ack',
    '/extend',
    '/purge',
    '/redrive',
    '/subscribe',
    '/nope',
  );
  await fc.assert(
    fc.asyncProperty(
      segment,
      suffix,
      fc.constantFrom<Method>('get', 'post', 'put', 'delete'),
      async (seg, sfx, method) => {
        const path =
          sfx === '' && method !== 'post'
            ? `/v1/relay/channels/${seg}`
            : `/v1/relay/channels/${seg}/messages${sfx}`;
        // Only requests that cannot succeed on a valid id: the state must stay as it is.
        const body = sfx === '/purge' || method === 'delete' ? '[]' : '{"nope":1}';
        const res = await checkRefusalChangesNothing(() =>
          client[method](path).set('Authorization', auth).send(body),
        );
        expect(res.status).not.toBe(200);
      },
    ),
    { numRuns: 200 },
  );
});

test('random Authorization headers are a 401 envelope that changes nothing', async () => {
  const visible = fc.stringOf(
    fc.char().filter((c) => c >= ' ' && c <= '~'),
    { maxLength: 120 },
  );
  const header = fc.oneof(
    visible,
    visible.map((s) => `Bearer ${s}`),
    visible.map((s) => `bearer rq_${s}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `${auth} extra`,
      `${auth.slice(0, -1)}`,
      `${auth}x`,
      auth.replace('acme', 'other'),
      auth.toUpperCase(),
      `Bearer ${'rq_'.padEnd(600, 'a')}`,
      `Bearer ${ADMIN_TOKEN}`,
    ),
  );
  const endpoint = fc.constantFrom(...ENDPOINTS.filter((e) => !e.admin));
  await fc.assert(
    fc.asyncProperty(header, endpoint, async (h, e) => {
      const res = await checkRefusalChangesNothing(() =>
        call(e).set('Authorization', h).send('{"body":1}'),
      );
      expect(res.status).toBe(401);
      expect([
        'missing Authorization header; send Authorization: Bearer <token>',
        'malformed Authorization header; expected Bearer <token>',
        'invalid token',
        'invalid or revoked token',
      ]).toContain(res.body.errors[0].message);
    }),
    { numRuns: 150 },
  );
});

test('random headers (content type, encoding, request id) never cause a 5xx', async () => {
  const token = fc.stringOf(
    fc.char().filter((c) => c > ' ' && c <= '~'),
    { minLength: 1, maxLength: 60 },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ENDPOINTS),
      fc.record(
        {
          'Content-Type': token,
          'Content-Encoding': fc.oneof(token, fc.constantFrom('gzip', 'deflate', 'br', 'identity')),
          'X-Request-Id': token,
          Accept: token,
        },
        { requiredKeys: [] },
      ),
      async (e, headers) => {
        const req = call(e)
          .set('Authorization', authFor(e))
          .set(headers as Record<string, string>);
        const res = await checkRefusalChangesNothing(() => req.send('{"bogus_field":1}'));
        if (e.method !== 'get') expect(res.status).not.toBe(200);
        if (
          typeof headers['X-Request-Id'] === 'string' &&
          /^[A-Za-z0-9._:-]{1,128}$/.test(headers['X-Request-Id'])
        )
          expect(res.headers['x-request-id']).toBe(headers['X-Request-Id']);
      },
    ),
    { numRuns: 150 },
  );
});

test('random and duplicated query parameters are ignored by the HTTP endpoints', async () => {
  const part = fc.oneof(
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom('batch_size', 'channels', '__proto__', 'constructor', '%', '%zz', ''),
  );
  const query = fc
    .array(fc.tuple(part, part), { maxLength: 8 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
  await fc.assert(
    fc.asyncProperty(query, async (q) => {
      const res = await checkRefusalChangesNothing(() =>
        client
          .post(`${mb}/pull?${q}&batch_size=1&batch_size=2`)
          .set('Authorization', auth)
          .send({ batch_size: 100, visibility_timeout_ms: 1000 }),
      );
      // The query changes nothing: an empty channel gives an empty batch (the leases stay out).
      expect(res.status).toBe(200);
      const list = await client.get(`/v1/relay/channels?${q}&${q}`).set('Authorization', auth);
      expectEnvelope(list);
      expect(list.status).toBe(200);
    }),
    { numRuns: RUNS },
  );
});

describe('adversarial bodies, each refused with a clear error', () => {
  const send = (body: string | Buffer) =>
    checkRefusalChangesNothing(() => client.post(mb).set('Authorization', auth).send(body));
  const messageOf = (res: request.Response) => [res.status, res.body.errors[0].message];

  test('deep nesting', async () => {
    expect(messageOf(await send(`{"body":${'['.repeat(200)}${']'.repeat(200)}}`))).toEqual([
      400,
      'request body is nested deeper than 128 levels',
    ]);
    expect(messageOf(await send(`${'['.repeat(500_000)}${']'.repeat(500_000)}`))).toEqual([
      400,
      'request body is nested deeper than 128 levels',
    ]);
  });

  test('huge strings and bodies', async () => {
    const big = await send(JSON.stringify({ body: 'x'.repeat(200_000) }));
    expect(messageOf(big)).toEqual([
      413,
      'message is 200004 bytes; the limit is 131072 bytes (body + metadata)',
    ]);
    const huge = await send(JSON.stringify({ body: 'x'.repeat(2_000_000) }));
    expect(messageOf(huge)).toEqual([413, 'request body is over the 1048576-byte limit']);
  });

  test('numbers JSON cannot carry', async () => {
    expect(messageOf(await send('{"body":1e309}'))).toEqual([
      400,
      'request body holds a number too large to represent',
    ]);
    expect(messageOf(await send('{"body":{"n":-1e400}}'))).toEqual([
      400,
      'request body holds a number too large to represent',
    ]);
    const pull = await checkRefusalChangesNothing(() =>
      client.post(`${mb}/pull`).set('Authorization', auth).send('{"batch_size":1e309}'),
    );
    expect(messageOf(pull)).toEqual([400, 'request body holds a number too large to represent']);
  });

  test('__proto__ keys are plain data: refused as unknown fields, kept as data in body and metadata, never polluting', async () => {
    const top = await send('{"__proto__":{"polluted":true},"body":1}');
    expect(messageOf(top)).toEqual([400, 'unknown field __proto__']);
    const inBody = await client
      .post('/v1/relay/channels/proto/messages')
      .set('Authorization', auth)
      .send('{"body":{"__proto__":{"polluted":true}},"metadata":{"__proto__":{"x":1}}}');
    expect(inBody.status).toBe(200);
    const pulled = await client
      .post('/v1/relay/channels/proto/messages/pull')
      .set('Authorization', auth)
      .send({});
    expect(pulled.text).toContain('"body":{"__proto__":{"polluted":true}}');
    expect(pulled.text).toContain('"metadata":{"__proto__":{"x":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await client.delete('/v1/relay/channels/proto').set('Authorization', auth);
  });

  test('invalid UTF-8', async () => {
    for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
      const body = Buffer.concat([Buffer.from('{"body":"'), Buffer.from(bytes), Buffer.from('"}')]);
      expect(messageOf(await send(body))).toEqual([400, 'request body is not valid UTF-8']);
    }
  });

  test('duplicate query parameters on the multi-channel subscription are refused before the upgrade', async () => {
    const refused = await refusedUpgrade(rq.app, '/v1/relay/subscribe?channels=a&channels=b', {
      Authorization: auth,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      success: false,
      errors: [{ code: 400, message: 'query parameter channels must be given once' }],
      messages: [],
      result: null,
    });
  });

  test('the service still answers after all of it', async () => {
    const res = await client.get('/healthz');
    expect(res.status).toBe(200);
    const ok = await client.post(mb).set('Authorization', auth).send({ body: 'still here' });
    expect(ok.status).toBe(200);
  });
});
