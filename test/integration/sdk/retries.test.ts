/**
 * 429 answers on a plan with a tiny rate limit: retried after Retry-After
 * (every call, a plain send too: a 429 means nothing was done), and thrown as
 * a RelayError with retryAfterMs once the retry budget is spent. And the
 * names before camelCase still work against a real relay.
 */
import { RelayClient, RelayError } from '@relayq/client';
import { useRelay } from '../../helpers/useRelay';

let calls: { status: number; at: number }[];

const counting: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  calls.push({ status: res.status, at: Date.now() });
  return res;
};

const rq = useRelay({
  listen: true,
  env: { RELAY_RATE_LIMIT_PER_SECOND: '1', RELAY_RATE_LIMIT_BURST: '1' },
  account: 'acme',
});
beforeEach(() => {
  calls = [];
});

test('a 429 is retried after its Retry-After, a plain send included, and the message stored once', async () => {
  const client = new RelayClient({
    url: rq.app.baseUrl,
    token: rq.token,
    fetch: counting,
    retry: { attempts: 4 },
  });
  await client.send('orders', { body: 1 });
  const started = Date.now();
  const second = await client.send('orders', { body: 2 });
  expect(second.id).toMatch(/^[0-9a-f-]{36}$/);
  const statuses = calls.map((c) => c.status);
  expect(statuses[0]).toBe(200);
  expect(statuses[1]).toBe(429);
  expect(statuses[statuses.length - 1]).toBe(200);
  // the retry waited what Retry-After asked (whole seconds: at least 1 s)
  expect(calls[2].at - started).toBeGreaterThanOrEqual(950);

  await new Promise((r) => setTimeout(r, 1100));
  const pulled = await client.pull('orders', { batchSize: 10 });
  expect(pulled.messages.map((m) => m.body)).toEqual([1, 2]);
}, 20_000);

test('once the budget is spent, the 429 is a RelayError with status, code, message and retryAfterMs', async () => {
  const client = new RelayClient({
    url: rq.app.baseUrl,
    token: rq.token,
    fetch: counting,
    retry: { attempts: 1 },
  });
  await client.channels();
  const err = await client.channels().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RelayError);
  const e = err as RelayError;
  expect([e.status, e.code, e.retryAfterMs, e.retryable]).toEqual([429, 429, 1000, true]);
  expect(e.message).toBe(
    'rate limit exceeded: this account may make 1 request per second in bursts of 1 (rate_limit_per_second 1, rate_limit_burst 1); retry after 1 s',
  );
  expect(calls.map((c) => c.status)).toEqual([200, 429]);
  expect(JSON.parse(JSON.stringify(e))).toEqual({
    name: 'RelayError',
    status: 429,
    code: 429,
    message: e.message,
    retryAfterMs: 1000,
  });
});

test('code written for the snake_case names keeps working (deprecated aliases)', async () => {
  const client = new RelayClient({ url: rq.app.baseUrl, token: rq.token, retry: { attempts: 10 } });
  await client.send('old', { body: 'x', content_type: 'text', dedup_id: 'd1' });
  const pulled = await client.pull('old', { batch_size: 1, visibility_timeout_ms: 60_000 });
  const [m] = pulled.messages;
  expect([m.lease_id, m.content_type, m.timestamp_ms]).toEqual([m.leaseId, 'text', m.timestampMs]);
  expect(pulled.message_backlog_count).toBe(pulled.messageBacklogCount);
  // the old names are readable but not enumerated: JSON shows the camelCase names only
  expect(Object.keys(m).sort()).toEqual(
    ['attempts', 'body', 'contentType', 'id', 'leaseId', 'metadata', 'timestampMs'].sort(),
  );
  const acked = await client.ack('old', [], {
    retries: [{ lease_id: m.leaseId, delay_seconds: 0 }],
  });
  expect([acked.acked_count, acked.retried_count]).toEqual([0, 1]);
}, 20_000);
