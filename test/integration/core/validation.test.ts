/** Request validation: fields, content types, JSON parsing, batches that are all or nothing. */
import { eventually } from '../../helpers/app';
import { expectError, path } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme' });

const backlog = async () =>
  (await rq.client.pullOk('orders', { batch_size: 1, visibility_timeout_ms: 1000 }))
    .message_backlog_count;

/** Posts raw bytes with the given Content-Type (or none). */
function raw(url: string, data: string | Buffer, contentType?: string) {
  const req = rq.app.http.post(url).set('Authorization', rq.auth);
  if (contentType) req.set('Content-Type', contentType);
  // superagent would JSON-encode a Buffer sent as application/json: send the bytes as they are
  if (Buffer.isBuffer(data)) req.serialize((bytes: unknown) => bytes as string);
  return req.send(data);
}

describe('body', () => {
  test('missing body is a 400 (docs/api/errors.md)', async () => {
    expectError(await rq.client.send('orders', {}), 400, 'required field body is missing');
    expectError(
      await rq.client.send('orders', { metadata: { a: 1 } }),
      400,
      'required field body is missing',
    );
  });
  test('no request body at all is also "body is missing"', async () => {
    expectError(await raw(path('orders'), ''), 400, 'required field body is missing');
  });
  test.each([null, 0, false, '', [], {}, 'text', [1, { a: null }], { deep: { er: [1.5, -2e10] } }])(
    'body %j is stored and returned as sent',
    async (body) => {
      await rq.client.sendOk('orders', { body });
      const pulled = await rq.client.pullOk('orders');
      expect(pulled.messages[0].body).toEqual(body);
      expect(pulled.messages[0].content_type).toBe('json');
    },
  );
});

describe('content_type', () => {
  test('text needs a string body', async () => {
    expectError(
      await rq.client.send('orders', { body: 5, content_type: 'text' }),
      400,
      'body must be a string when content_type is text',
    );
    await rq.client.sendOk('orders', { body: 'hello', content_type: 'text' });
    const m = (await rq.client.pullOk('orders')).messages[0];
    expect([m.body, m.content_type]).toEqual(['hello', 'text']);
  });
  test.each(['bytes', 'v8'])('%s needs a base64 string body, returned as sent', async (ct) => {
    expectError(
      await rq.client.send('orders', { body: 'not base64!', content_type: ct }),
      400,
      `body must be a base64 string when content_type is ${ct}`,
    );
    expectError(
      await rq.client.send('orders', { body: { a: 1 }, content_type: ct }),
      400,
      `body must be a base64 string when content_type is ${ct}`,
    );
    expectError(
      await rq.client.send('orders', { body: 'abc', content_type: ct }),
      400,
      `body must be a base64 string when content_type is ${ct}`,
    );
    const encoded = Buffer.from([0, 1, 2, 250, 255]).toString('base64');
    await rq.client.sendOk('orders', { body: encoded, content_type: ct });
    const m = (await rq.client.pullOk('orders')).messages[0];
    expect([m.body, m.content_type]).toEqual([encoded, ct]);
  });
  test('an unknown content_type is a 400 listing the allowed ones', async () => {
    expectError(
      await rq.client.send('orders', { body: 1, content_type: 'xml' }),
      400,
      'content_type must be one of json, text, bytes, v8',
    );
  });
  test('in a batch the error names the index', async () => {
    expectError(
      await rq.client.batch('orders', {
        messages: [
          { body: 'a', content_type: 'text' },
          { body: 1, content_type: 'text' },
        ],
      }),
      400,
      'messages[1].body must be a string when content_type is text',
    );
    expect(await backlog()).toBe(0);
  });
});

describe('optional fields', () => {
  test.each([
    [{ body: 1, delay_seconds: null }, 'delay_seconds must be a number'],
    [{ body: 1, metadata: null }, 'metadata must be a JSON object'],
    [{ body: 1, content_type: null }, 'content_type must be a string'],
    [{ body: 1, metadata: [1, 2] }, 'metadata must be a JSON object'],
    [{ body: 1, metadata: 'a=b' }, 'metadata must be a JSON object'],
    [{ body: 1, delay_second: 5 }, 'unknown field delay_second'],
    [{ body: 1, id: 'mine' }, 'unknown field id'],
  ])('%j is a 400', async (message, text) => {
    expectError(await rq.client.send('orders', message), 400, text);
    expect(await backlog()).toBe(0);
  });
  test('unknown fields in a batch request and in a batch entry', async () => {
    expectError(
      await rq.client.batch('orders', { messages: [{ body: 1 }], delay: 3 }),
      400,
      'unknown field delay',
    );
    expectError(
      await rq.client.batch('orders', { messages: [{ body: 1 }, { body: 2, extra: true }] }),
      400,
      'unknown field messages[1].extra',
    );
  });
  test('unknown fields in pull and ack', async () => {
    expectError(await rq.client.pull('orders', { timeout: 1 }), 400, 'unknown field timeout');
    const res = await rq.app.http
      .post(path('orders', '/ack'))
      .set('Authorization', rq.auth)
      .send({ lease_ids: [], lease_id: 'x' });
    expectError(res, 400, 'unknown field lease_id');
  });
  test('metadata comes back exactly as sent, {} when absent', async () => {
    const metadata = { source: 'github', nested: { list: [1, 'two', null], ok: true }, é: 'ü' };
    await rq.client.sendOk('orders', { body: 1, metadata });
    await rq.client.sendOk('orders', { body: 2 });
    await rq.client.sendOk('orders', { body: 3, metadata: {} });
    const ms = (await rq.client.pullOk('orders')).messages;
    expect(ms.map((m) => m.metadata)).toEqual([metadata, {}, {}]);
  });
});

test('keys such as __proto__ are plain data: refused at top level, kept in metadata and body', async () => {
  expectError(
    await raw(path('orders'), '{"body":1,"__proto__":{"x":1}}'),
    400,
    'unknown field __proto__',
  );
  await raw(
    path('orders'),
    '{"body":{"__proto__":{"a":1}},"metadata":{"__proto__":{"b":2},"constructor":3}}',
  );
  const [m] = (await rq.client.pullOk('orders')).messages;
  expect(JSON.stringify(m.body)).toBe('{"__proto__":{"a":1}}');
  expect(JSON.stringify(m.metadata)).toBe('{"__proto__":{"b":2},"constructor":3}');
});

describe('batch: all or nothing', () => {
  test('one bad entry stores nothing and the error names its index', async () => {
    const res = await rq.client.batch('orders', {
      messages: [{ body: 0 }, { body: 1 }, { metadata: {} }, { body: 3 }],
    });
    expectError(res, 400, 'required field messages[2].body is missing');
    expect(await backlog()).toBe(0);
    expect(await rq.app.relay.store.channels.list('acme')).toEqual([]);
  });
  test('entries must be objects', async () => {
    expectError(
      await rq.client.batch('orders', { messages: [{ body: 0 }, 7] }),
      400,
      'messages[1] must be a JSON object',
    );
  });
  test('the batch delay_seconds applies only to entries without their own', async () => {
    const res = await rq.client.batch('orders', {
      delay_seconds: 60,
      messages: [
        { body: 'default' },
        { body: 'now', delay_seconds: 0 },
        { body: 'own', delay_seconds: 1 },
      ],
    });
    expect(res.status).toBe(200);
    const first = await rq.client.pullOk('orders', { visibility_timeout_ms: 60_000 });
    expect(first.messages.map((m) => m.body)).toEqual(['now']);
    expect(first.message_backlog_count).toBe(3);
    let later: unknown[] = [];
    await eventually(async () => {
      later = (await rq.client.pullOk('orders', { visibility_timeout_ms: 60_000 })).messages.map(
        (m) => m.body,
      );
      return later.length > 0;
    }, 4000);
    expect(later).toEqual(['own']);
  });
  test('a batch with a batch-level delay only', async () => {
    await rq.client.batch('orders', { delay_seconds: 1, messages: [{ body: 1 }, { body: 2 }] });
    expect((await rq.client.pullOk('orders')).messages).toEqual([]);
    let bodies: unknown[] = [];
    await eventually(async () => {
      bodies = (await rq.client.pullOk('orders')).messages.map((m) => m.body);
      return bodies.length > 0;
    }, 4000);
    expect(bodies).toEqual([1, 2]);
  });
});

describe('JSON parsing', () => {
  test('malformed JSON is a 400', async () => {
    expectError(
      await raw(path('orders'), '{"body": 1', 'application/json'),
      400,
      'request body is not valid JSON',
    );
    expectError(
      await raw(path('orders', '/pull'), "{'a':1}"),
      400,
      'request body is not valid JSON',
    );
  });
  test('JSON is parsed whatever Content-Type says, or with none', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
    ]) {
      const res = await raw(path('orders'), `{"body":"${type}"}`, type);
      expect(res.status).toBe(200);
    }
    const none = await rq.app.http
      .post(path('orders'))
      .set('Authorization', rq.auth)
      .send(Buffer.from('{"body":"none"}'))
      .unset('Content-Type');
    expect(none.status).toBe(200);
    const ms = (await rq.client.pullOk('orders')).messages.map((m) => m.body);
    expect(ms).toEqual([
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'none',
    ]);
  });
  test('a body that is not a JSON object is a 400', async () => {
    expectError(
      await raw(path('orders'), '[{"body":1}]'),
      400,
      'request body must be a JSON object',
    );
    expectError(await raw(path('orders'), 'null'), 400, 'request body must be a JSON object');
    expectError(await raw(path('orders'), '"body"'), 400, 'request body must be a JSON object');
  });
  test('nesting: 128 levels are accepted, 129 are a 400', async () => {
    const nested = (levels: number) =>
      `{"body":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect((await raw(path('orders'), nested(128))).status).toBe(200);
    expectError(
      await raw(path('orders'), nested(129)),
      400,
      'request body is nested deeper than 128 levels',
    );
    expectError(
      await raw(path('orders'), nested(100_000)),
      400,
      'request body is nested deeper than 128 levels',
    );
  });
  test('a number JSON cannot carry (1e309) is a 400', async () => {
    expectError(
      await raw(path('orders'), '{"body":1e309}'),
      400,
      'request body holds a number too large to represent',
    );
    expectError(
      await raw(path('orders'), '{"body":{"a":[-1e400]}}'),
      400,
      'request body holds a number too large to represent',
    );
  });
  test('invalid UTF-8 is a 400', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"body":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expectError(
      await raw(path('orders'), bytes, 'application/json'),
      400,
      'request body is not valid UTF-8',
    );
    expect(await backlog()).toBe(0);
  });
  test('an empty pull body, or none, takes the defaults', async () => {
    await rq.client.batch('orders', {
      messages: Array.from({ length: 12 }, (_, i) => ({ body: i })),
    });
    const res = await raw(path('orders', '/pull'), '');
    expect(res.status).toBe(200);
    expect(res.body.result.messages).toHaveLength(10);
  });
});
