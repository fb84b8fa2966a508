/**
 * Per-token rate limiting, checked right after authentication so that one
 * tenant's flood cannot starve the others. RELAY_RATE_LIMIT_PER_SECOND (0:
 * off, the default) and RELAY_RATE_LIMIT_BURST (default: one second's worth)
 * become a fixed window counted in Redis under the account's hash tag: at
 * most BURST requests per window of BURST / RATE seconds, for the token across
 * every pod. Over the limit: 429 with Retry-After.
 */
import { AppError } from '../errors';
import type { RateWindows } from '../store/rateLimits';

export class RateLimiter {
  readonly burst: number;
  readonly windowMs: number;

  constructor(
    readonly perSecond: number,
    burst: number,
    private readonly windows: RateWindows,
  ) {
    this.burst = burst > 0 ? burst : Math.max(1, perSecond);
    this.windowMs = perSecond > 0 ? Math.max(1, Math.round((1000 * this.burst) / perSecond)) : 0;
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  /** Counts the request; throws a 429 (with Retry-After in whole seconds) when over the limit. */
  async enforce(accountId: string, tokenId: string): Promise<void> {
    if (!this.enabled) return;
    const waitMs = await this.windows.hit(accountId, tokenId, this.burst, this.windowMs);
    if (waitMs <= 0) return;
    const wait = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `rate limit exceeded: this token may make ${this.perSecond} request${this.perSecond === 1 ? '' : 's'} per second (bursts of ${this.burst}); retry after ${wait} s`,
      { 'Retry-After': String(wait) },
    );
  }
}
