/** What a filter sees of a stored message (src/filters/input.ts). */
import { filterInputOf, matches, parseFilter, type StoredMessage } from '../../src/filters';
import { webhookMessage } from '../../src/webhooks/message';

const filter = (f: unknown) => parseFilter(f, 'filter');

/** A message as the send path stores it: the body's JSON text and the metadata's. */
const stored = (contentType: string, body: unknown, metadata: unknown = {}): StoredMessage => ({
  contentType,
  bodyJson: JSON.stringify(body),
  metadataJson: JSON.stringify(metadata),
});

describe('bodies', () => {
  test('a JSON body is filtered as JSON, from its stored text or as a value', () => {
    const body = { type: 'invoice.paid', amount: 5000 };
    expect(filterInputOf(stored('json', body)).body).toEqual(body);
    expect(filterInputOf({ contentType: 'json', body, metadata: {} }).body).toBe(body);
    expect(filterInputOf(stored('json', 'just a string')).body).toBe('just a string');
    expect(filterInputOf(stored('json', null)).body).toBeNull();
  });

  test('a text body that parses as JSON is filtered as JSON', () => {
    expect(filterInputOf(stored('text', ' {"type":"push","n":[1,2]}\n')).body).toEqual({
      type: 'push',
      n: [1, 2],
    });
    expect(filterInputOf(stored('text', '42')).body).toBe(42);
    expect(filterInputOf(stored('text', '"quoted"')).body).toBe('quoted');
    expect(filterInputOf({ contentType: 'text', body: 'null', metadata: {} }).body).toBeNull();
  });

  test('any other body is no JSON body: undefined', () => {
    expect(filterInputOf(stored('text', 'hello world')).body).toBeUndefined();
    expect(filterInputOf(stored('text', '')).body).toBeUndefined();
    expect(filterInputOf(stored('text', '{"unterminated":')).body).toBeUndefined();
    expect(filterInputOf(stored('text', '<xml type="push"/>')).body).toBeUndefined();
    // base64 of {"a":1}: still bytes
    expect(filterInputOf(stored('bytes', 'eyJhIjoxfQ==')).body).toBeUndefined();
    expect(filterInputOf(stored('v8', 'eyJhIjoxfQ==')).body).toBeUndefined();
  });

  test('with no JSON body, a filter on the body matches only $exist: false', () => {
    for (const message of [stored('text', 'type=push'), stored('bytes', 'AAEC')]) {
      const input = filterInputOf(message);
      expect(matches(filter({ body: { $exist: false } }), input)).toBe(true);
      expect(matches(filter({ body: { type: { $exist: false } } }), input)).toBe(true);
      expect(matches(filter({ body: { $exist: true } }), input)).toBe(false);
      expect(matches(filter({ body: { $contains: 'push' } }), input)).toBe(false);
      expect(matches(filter({ body: 'type=push' }), input)).toBe(false);
      expect(matches(filter({ body: { type: { $neq: 'x' } } }), input)).toBe(false);
    }
  });

  test('the body is parsed once, and only when a filter reaches it', () => {
    const message = stored('text', JSON.stringify({ type: 'push' }));
    let reads = 0;
    const counted: StoredMessage = {
      ...message,
      get bodyJson() {
        reads++;
        return (message as { bodyJson: string }).bodyJson;
      },
    } as StoredMessage;
    const input = filterInputOf(counted);
    expect(matches(filter({ headers: { 'x-a': { $exist: false } } }), input)).toBe(true);
    expect(matches(filter({ metadata: { a: 1 }, body: { type: 'push' } }), input)).toBe(false);
    expect(reads).toBe(0);
    expect(matches(filter({ body: { type: 'push' } }), input)).toBe(true);
    expect(matches(filter({ body: { type: { $startsWith: 'pu' } } }), input)).toBe(true);
    expect(reads).toBe(1);
  });
});

describe('webhook messages', () => {
  const message = webhookMessage({
    webhookId: 'wh_1',
    method: 'POST',
    query: 'team=ci&tag=a&tag=b&empty=&sp=a+b&pct=%2Fx&__proto__=p&constructor=c',
    headers: { 'x-github-event': 'push', 'content-type': 'application/json' },
    body: Buffer.from('{"ref":"refs/heads/main","commits":[{"id":"abc"}]}'),
    receivedAt: 1_700_000_000_000,
    verified: true,
    dedupId: null,
  });
  const input = filterInputOf(message);

  test('headers and query come from metadata.webhook; a repeated name is an array', () => {
    expect(input.headers).toEqual({ 'x-github-event': 'push', 'content-type': 'application/json' });
    expect({ ...input.query }).toEqual({
      team: 'ci',
      tag: ['a', 'b'],
      empty: '',
      sp: 'a b',
      pct: '/x',
      ['__proto__']: 'p',
      constructor: 'c',
    });
    expect(Object.prototype.hasOwnProperty.call(input.query, '__proto__')).toBe(true);
  });

  test('one filter over headers, query, metadata and the exact body', () => {
    const f = filter({
      headers: { 'x-github-event': { $in: ['push', 'release'] } },
      query: { tag: ['b', 'a'], team: 'ci', __proto__: 'p' },
      metadata: { webhook: { verified: true, method: 'POST' } },
      body: { ref: 'refs/heads/main', commits: { id: 'abc' } },
    });
    expect(matches(f, input)).toBe(true);
    expect(matches(filter({ query: { tag: 'c' } }), input)).toBe(false);
    expect(matches(filter({ headers: { 'x-github-event': 'issues' } }), input)).toBe(false);
    expect(matches(filter({ metadata: { webhook: { verified: false } } }), input)).toBe(false);
  });

  test('a webhook body that is not UTF-8 is bytes: only $exist: false on the body', () => {
    const bytes = filterInputOf(
      webhookMessage({
        webhookId: 'wh_1',
        method: 'POST',
        query: '',
        headers: { 'x-kind': 'bin' },
        body: Buffer.from([0xff, 0xfe, 0x7b]),
        receivedAt: 0,
        verified: null,
        dedupId: null,
      }),
    );
    expect(bytes.body).toBeUndefined();
    expect(matches(filter({ headers: { 'x-kind': 'bin' }, body: { $exist: false } }), bytes)).toBe(
      true,
    );
  });
});

test('messages from other entrances have no headers and no query', () => {
  const input = filterInputOf(stored('json', { a: 1 }, { source: 'api' }));
  expect(input.headers).toEqual({});
  expect(input.query).toEqual({});
  expect(input.metadata).toEqual({ source: 'api' });
  expect(matches(filter({ headers: { 'x-github-event': { $exist: false } } }), input)).toBe(true);
  expect(matches(filter({ query: { a: { $exist: true } } }), input)).toBe(false);
  expect(matches(filter({ metadata: { source: 'api' } }), input)).toBe(true);
});

test('malformed webhook metadata is read as absent, never from a prototype', () => {
  const odd = filterInputOf(stored('json', {}, { webhook: { headers: 'x-a: 1', query: ['a=1'] } }));
  expect(odd.headers).toEqual({});
  expect(odd.query).toEqual({});
  const noMeta = filterInputOf({ contentType: 'json', body: {}, metadata: null });
  expect(noMeta.metadata).toEqual({});
  expect(matches(filter({ metadata: { constructor: { $exist: true } } }), noMeta)).toBe(false);
  expect(matches(filter({ headers: { constructor: { $exist: true } } }), noMeta)).toBe(false);
});
