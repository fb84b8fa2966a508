/** The account limiter's pure parts: rate windows, the operator API's bucket, refusals naming the limit. */
import pino from 'pino';
import { RelayError } from '../../src/errors';
import { toEnvelope } from '../../src/web/envelope';
import { AccountLimits } from '../../src/limits/accountLimits';
import { rateWindow } from '../../src/store/scripts/plans';
import type { LimitStore } from '../../src/store/limits';

test('rate and burst become a window of burst/rate seconds holding burst requests; 0 is unlimited', () => {
  expect(rateWindow(10, 50)).toEqual({ limit: 50, windowMs: 5000 });
  expect(rateWindow(5, 0)).toEqual({ limit: 5, windowMs: 1000 });
  expect(rateWindow(1000, 1)).toEqual({ limit: 1, windowMs: 1 });
  expect(rateWindow(0, 10)).toEqual({ limit: 0, windowMs: 1 });
});

const noStore = {} as LimitStore; // the operator limit and unlimited plans never reach the store

test('the operator API: RELAY_ADMIN_RATE_LIMIT_PER_SECOND requests, then a 429 naming it', () => {
  const limits = new AccountLimits(noStore, pino({ level: 'silent' }), 2);
  limits.enforceOperator();
  limits.enforceOperator();
  let refusal: unknown = null;
  try {
    limits.enforceOperator();
  } catch (err) {
    refusal = err;
  }
  expect(refusal).toBeInstanceOf(RelayError);
  expect(toEnvelope(refusal).status).toBe(429);
  expect(toEnvelope(refusal).headers).toEqual({ 'Retry-After': '1' });
  expect((refusal as RelayError).message).toBe(
    'rate limit exceeded: the operator API takes 2 requests per second on each server (RELAY_ADMIN_RATE_LIMIT_PER_SECOND); retry after 1 s',
  );
  limits.stop();
});
