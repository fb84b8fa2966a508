/**
 * Leased places behind the account limits, shared by every pod: concurrent WebSockets and
 * long polls. (The rate limits are counted by the scripts themselves: lua/lib/caller.lua.)
 */
import type { StoreContext } from './context';
import { holdersKey } from './keys';
import type { LimitStore } from './types';

export type { LimitStore } from './types';

export function createLimitStore(ctx: StoreContext): LimitStore {
  return {
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
