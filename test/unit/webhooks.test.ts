/** The pure parts of webhook ingest and forwarding: keys, header filtering, messages, replay requests. */
import {
  bodyBytes,
  fromWire,
  messageRequest,
  retryDelaySeconds,
  targetUrl,
  type PulledMessage,
} from '@relayq/client';
import { parseToken } from '../../src/auth/tokens';
import { dedupIdOf } from '../../src/webhooks/dedup';
import { isKeptHeader } from '../../src/webhooks/headers';
import { formatHookKey, newHookKey, parseHookKey } from '../../src/webhooks/hookKey';
import { webhookMessage } from '../../src/webhooks/message';
import type { WebhookRecord } from '../../src/store/types';

test('a hook key round-trips, names its account, and is never a token', () => {
  const key = newHookKey('acme.eu');
  const text = formatHookKey(key);
  expect(text).toMatch(/^wh_[0-9a-f]{16}[A-Za-z0-9_-]{43}_acme\.eu$/);
  expect(parseHookKey(text)).toEqual(key);
  expect(parseToken(text)).toBeNull();
  for (const bad of [
    '',
    'wh_',
    text.slice(0, -8),
    `rq_${text.slice(3)}`,
    `${text}/x`,
    text.replace('_acme', '_.acme'),
  ]) {
    expect(parseHookKey(bad)).toBeNull();
  }
  expect(newHookKey('a').secret).not.toBe(newHookKey('a').secret);
});

test.each([
  ['content-type', true],
  ['x-hub-signature-256', true],
  ['user-agent', true],
  ['host', false],
  ['content-length', false],
  ['connection', false],
  ['keep-alive', false],
  ['transfer-encoding', false],
  ['te', false],
  ['trailer', false],
  ['upgrade', false],
  ['proxy-authorization', false],
  ['cookie', false],
  ['authorization', false],
  ['forwarded', false],
  ['x-forwarded-for', false],
  ['x-forwarded-host', false],
  ['x-real-ip', false],
])('header %s kept: %s', (name, kept) => {
  expect(isKeptHeader(name)).toBe(kept);
});

const base = {
  webhookId: 'w',
  method: 'POST',
  query: '',
  headers: {},
  receivedAt: 1,
  verified: null,
  dedupId: null,
};

test('UTF-8 bodies are text (BOM kept), others base64 bytes; size is what is stored', () => {
  const text = webhookMessage({ ...base, body: Buffer.from('\ufeffhé', 'utf8') });
  expect([text.contentType, JSON.parse(text.bodyJson)]).toEqual(['text', '\ufeffhé']);
  // the body's JSON text (its 6 bytes and two quotes) plus the metadata's
  expect(text.size).toBe(8 + Buffer.byteLength(text.metadataJson));
  const bytes = webhookMessage({ ...base, body: Buffer.from([0xc3, 0x28]) });
  expect([bytes.contentType, JSON.parse(bytes.bodyJson)]).toEqual(['bytes', 'wyg=']);
  expect(bytes.size).toBe(6 + Buffer.byteLength(bytes.metadataJson));
  // text that escapes to more than twice its length (NUL, control characters) is kept as bytes
  const nul = webhookMessage({ ...base, body: Buffer.from('a\u0000b', 'utf8') });
  expect([nul.contentType, JSON.parse(nul.bodyJson)]).toEqual(['bytes', 'YQBi']);
  const quotes = webhookMessage({ ...base, body: Buffer.from('"x"', 'utf8') });
  expect([quotes.contentType, JSON.parse(quotes.bodyJson)]).toEqual(['text', '"x"']);
  expect(JSON.parse(webhookMessage({ ...base, body: Buffer.alloc(0) }).bodyJson)).toBe('');
});

test('dedup ids: configured header first, then the scheme; long ids hashed', () => {
  const hook = (scheme: string | null, dedup: string | null = null) =>
    ({
      verify: scheme ? { scheme, secret: 's', on_failure: 'reject' } : null,
      dedup_header: dedup,
    }) as WebhookRecord;
  const body = Buffer.from('{"id":"evt_1","data":{"id":"x"}}');
  expect(dedupIdOf(hook('stripe'), {}, body)).toBe('evt_1');
  expect(dedupIdOf(hook('stripe'), {}, Buffer.from('[1]'))).toBeNull();
  expect(dedupIdOf(hook('github'), { 'x-github-delivery': 'g1' }, body)).toBe('g1');
  expect(dedupIdOf(hook('standard-webhooks'), { 'svix-id': 's1' }, body)).toBe('s1');
  expect(
    dedupIdOf(hook('github', 'x-id'), { 'x-id': 'mine', 'x-github-delivery': 'g' }, body),
  ).toBe('mine');
  expect(dedupIdOf(hook(null), { 'x-github-delivery': 'g' }, body)).toBeNull();
  expect(dedupIdOf(hook(null, 'x-id'), { 'x-id': 'a'.repeat(200) }, body)).toMatch(
    /^sha256:[0-9a-f]{64}$/,
  );
});

/** A pulled message as the SDK returns it, from its wire form. */
const pulled = (over: Record<string, unknown>): PulledMessage =>
  fromWire<PulledMessage>({
    id: 'm1',
    body: null,
    content_type: 'json',
    timestamp_ms: 1,
    attempts: 2,
    metadata: {},
    lease_id: 'l',
    ...over,
  });

test('a webhook message replays as the request it was; others as a POST of their body', () => {
  const hooked = messageRequest(
    pulled({
      body: Buffer.from([0, 255]).toString('base64'),
      content_type: 'bytes',
      metadata: {
        webhook: {
          method: 'PUT',
          query: 'a=1',
          headers: { 'content-type': 'x/y', expect: '100-continue', 'x-sig': 's' },
        },
      },
    }),
  );
  expect(hooked).toEqual({
    method: 'PUT',
    query: 'a=1',
    headers: {
      'content-type': 'x/y',
      'x-sig': 's',
      'x-relayq-message-id': 'm1',
      'x-relayq-attempts': '2',
    },
    body: new Uint8Array([0, 255]),
  });
  const json = messageRequest(pulled({ body: { a: [1, 'é'] } }));
  expect([json.method, json.headers['content-type'], Buffer.from(json.body).toString()]).toEqual([
    'POST',
    'application/json',
    '{"a":[1,"é"]}',
  ]);
  expect(messageRequest(pulled({ body: 'hi', content_type: 'text' })).headers['content-type']).toBe(
    'text/plain; charset=utf-8',
  );
  expect(Buffer.from(bodyBytes(pulled({ body: 'hi', content_type: 'text' }))).toString()).toBe(
    'hi',
  );
});

test('targetUrl appends the stored query after the target own; retry delays grow to the cap', () => {
  expect(targetUrl('http://h/x', '')).toBe('http://h/x');
  expect(targetUrl('http://h/x', 'a=1')).toBe('http://h/x?a=1');
  expect(targetUrl('http://h/x?k=v', 'a=1')).toBe('http://h/x?k=v&a=1');
  expect(targetUrl('http://h/x#frag', 'a=1')).toBe('http://h/x?a=1');
  expect([1, 2, 3, 4, 12].map((n) => retryDelaySeconds(n, 1, 300))).toEqual([1, 2, 4, 8, 300]);
});
