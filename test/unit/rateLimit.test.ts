import { AppError } from '../../src/errors';
import { RateLimiter } from '../../src/http/rateLimit';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('0 per second disables the limiter', () => {
  const limiter = new RateLimiter(0, 0);
  expect(limiter.enabled).toBe(false);
  for (let i = 0; i < 10_000; i++) expect(limiter.take('t')).toBe(0);
  expect(limiter.size()).toBe(0);
});

test('a burst is allowed, then requests refill at the configured rate', () => {
  const c = clock();
  const limiter = new RateLimiter(10, 20, c.now);
  for (let i = 0; i < 20; i++) expect(limiter.take('t')).toBe(0);
  expect(limiter.take('t')).toBe(1);
  c.advance(100); // one request refilled
  expect(limiter.take('t')).toBe(0);
  expect(limiter.take('t')).toBe(1);
  c.advance(10_000);
  for (let i = 0; i < 20; i++) expect(limiter.take('t')).toBe(0);
  expect(limiter.take('t')).toBe(1);
});

test('burst defaults to one second of requests, and Retry-After rounds up to whole seconds', () => {
  const c = clock();
  const limiter = new RateLimiter(0.5 as number, 0, c.now);
  expect(limiter.burst).toBe(1);
  expect(limiter.take('t')).toBe(0);
  expect(limiter.take('t')).toBe(2);
  const l2 = new RateLimiter(5, 0, c.now);
  expect(l2.burst).toBe(5);
});

test('each token has its own bucket', () => {
  const c = clock();
  const limiter = new RateLimiter(1, 2, c.now);
  expect(limiter.take('a')).toBe(0);
  expect(limiter.take('a')).toBe(0);
  expect(limiter.take('a')).toBe(1);
  expect(limiter.take('b')).toBe(0);
  expect(limiter.take('b')).toBe(0);
  expect(limiter.take('b')).toBe(1);
});

test('enforce throws a 429 AppError with Retry-After and a clear message', () => {
  const c = clock();
  const limiter = new RateLimiter(2, 1, c.now);
  limiter.enforce('t');
  let thrown: unknown;
  try {
    limiter.enforce('t');
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(AppError);
  const e = thrown as AppError;
  expect(e.status).toBe(429);
  expect(e.code).toBe('RATE_LIMITED');
  expect(e.headers).toEqual({ 'Retry-After': '1' });
  expect(e.message).toBe(
    'rate limit exceeded: this token may make 2 requests per second (bursts of 1); retry after 1 s',
  );
});

test('full, idle buckets are pruned when the map grows large', () => {
  const c = clock();
  const limiter = new RateLimiter(100, 1, c.now);
  for (let i = 0; i < 10_000; i++) limiter.take(`t${i}`);
  expect(limiter.size()).toBe(10_000);
  c.advance(1000);
  limiter.take('new');
  expect(limiter.size()).toBe(1);
});
