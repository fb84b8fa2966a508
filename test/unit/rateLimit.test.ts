import { AppError } from '../../src/errors';
import { RateLimiter } from '../../src/http/rateLimit';
import type { RateWindows } from '../../src/store/rateLimits';

/** A fixed-window counter in memory, like lua/rate_limit.lua, with a clock the test moves. */
function fakeWindows() {
  let now = 0;
  const windows = new Map<string, { count: number; endsAt: number }>();
  const calls: [string, string, number, number][] = [];
  const store: RateWindows = {
    async hit(account, token, limit, windowMs) {
      calls.push([account, token, limit, windowMs]);
      const key = `${account}/${token}`;
      let w = windows.get(key);
      if (!w || w.endsAt <= now) {
        w = { count: 0, endsAt: now + windowMs };
        windows.set(key, w);
      }
      w.count++;
      return w.count <= limit ? 0 : w.endsAt - now;
    },
  };
  return { store, calls, advance: (ms: number) => (now += ms) };
}

async function refusal(p: Promise<void>): Promise<AppError | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err as AppError;
  }
}

test('0 per second disables the limiter: no counting at all', async () => {
  const w = fakeWindows();
  const limiter = new RateLimiter(0, 0, w.store);
  expect(limiter.enabled).toBe(false);
  for (let i = 0; i < 1000; i++) await limiter.enforce('a', 't');
  expect(w.calls).toEqual([]);
});

test('rate and burst become a window of burst/rate seconds holding burst requests', () => {
  const w = fakeWindows();
  expect(new RateLimiter(10, 50, w.store)).toMatchObject({ burst: 50, windowMs: 5000 });
  expect(new RateLimiter(5, 0, w.store)).toMatchObject({ burst: 5, windowMs: 1000 });
  expect(new RateLimiter(1000, 1, w.store)).toMatchObject({ burst: 1, windowMs: 1 });
});

test('over the limit: a 429 AppError with Retry-After in whole seconds and a clear message', async () => {
  const w = fakeWindows();
  const limiter = new RateLimiter(2, 4, w.store);
  for (let i = 0; i < 4; i++) expect(await refusal(limiter.enforce('a', 't'))).toBeNull();
  w.advance(300);
  const e = await refusal(limiter.enforce('a', 't'));
  expect(e).toBeInstanceOf(AppError);
  expect(e!.status).toBe(429);
  expect(e!.code).toBe('RATE_LIMITED');
  expect(e!.headers).toEqual({ 'Retry-After': '2' }); // 1700 ms left in the 2 s window
  expect(e!.message).toBe(
    'rate limit exceeded: this token may make 2 requests per second (bursts of 4); retry after 2 s',
  );
  w.advance(1700);
  expect(await refusal(limiter.enforce('a', 't'))).toBeNull();
});

test('each token is counted on its own, under its account', async () => {
  const w = fakeWindows();
  const limiter = new RateLimiter(1, 1, w.store);
  expect(await refusal(limiter.enforce('a', 't1'))).toBeNull();
  expect((await refusal(limiter.enforce('a', 't1')))?.status).toBe(429);
  expect(await refusal(limiter.enforce('a', 't2'))).toBeNull();
  expect(await refusal(limiter.enforce('b', 't1'))).toBeNull();
  expect(w.calls[0]).toEqual(['a', 't1', 1, 1000]);
});
