/** Per-token request counters in Redis (fixed windows), shared by every pod. */
import type { StoreContext } from './context';
import { rateLimitKey } from './keys';

export interface RateWindows {
  /** Counts one request; returns 0 when within the limit, else the ms until the window ends. */
  hit(accountId: string, tokenId: string, limit: number, windowMs: number): Promise<number>;
}

export function createRateWindows(ctx: StoreContext): RateWindows {
  return {
    async hit(accountId, tokenId, limit, windowMs) {
      const wait = await ctx.call<number>(
        'rate_limit',
        [rateLimitKey(accountId, tokenId)],
        [limit, windowMs],
      );
      return Number(wait);
    },
  };
}
