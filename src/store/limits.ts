/**
 * Counters behind the account limits, shared by every pod: fixed request
 * windows (rate limits) and leased places (concurrent WebSockets and long polls).
 */
import type { StoreContext } from './context';
import { accountRateKey, holdersKey, rateLimitKey, type HolderKind } from './keys';

export interface RateWindow {
  /** requests allowed per window; 0: not limited */
  limit: number;
  windowMs: number;
}

export interface RateHit {
  /** 0 when the request is allowed, else the ms until the full window ends */
  waitMs: number;
  /** which limit refused it */
  refusedBy: 'account' | 'token' | null;
}

export interface LimitStore {
  /** Counts one request of the account (and of its token when it has a window); refused ones are not counted. */
  hitRate(
    account: string,
    tokenId: string,
    own: RateWindow,
    token: RateWindow | null,
  ): Promise<RateHit>;
  acquireHolder(
    account: string,
    kind: HolderKind,
    holderId: string,
    cap: number,
    leaseMs: number,
  ): Promise<{ taken: boolean; held: number }>;
  releaseHolders(account: string, kind: HolderKind, holderIds: string[]): Promise<number>;
  refreshHolders(
    account: string,
    kind: HolderKind,
    holderIds: string[],
    leaseMs: number,
  ): Promise<number>;
}

function rateHit(reply: [number, string?]): RateHit {
  const waitMs = Number(reply[0]);
  return { waitMs, refusedBy: waitMs > 0 ? (reply[1] as 'account' | 'token') : null };
}

export function createLimitStore(ctx: StoreContext): LimitStore {
  return {
    async hitRate(account, tokenId, own, token) {
      const reply = await ctx.call<[number, string?]>(
        'rate_limit',
        [accountRateKey(account), rateLimitKey(account, tokenId)],
        [own.limit, own.windowMs, token?.limit ?? 0, token?.windowMs ?? 1],
      );
      return rateHit(reply);
    },
    async acquireHolder(account, kind, holderId, cap, leaseMs) {
      const [taken, held] = await ctx.call<[number, number]>(
        'holder_acquire',
        [holdersKey(account, kind)],
        [holderId, cap, leaseMs],
      );
      return { taken: Number(taken) === 1, held: Number(held) };
    },
    async releaseHolders(account, kind, holderIds) {
      if (holderIds.length === 0) return 0;
      return Number(await ctx.call('holder_release', [holdersKey(account, kind)], holderIds));
    },
    async refreshHolders(account, kind, holderIds, leaseMs) {
      if (holderIds.length === 0) return 0;
      return Number(
        await ctx.call('holder_refresh', [holdersKey(account, kind)], [leaseMs, ...holderIds]),
      );
    },
  };
}
