/**
 * Leased places behind the account limits, shared by every pod: concurrent WebSockets and
 * long polls. (The rate limits are counted by the scripts themselves: lua/lib/caller.lua.)
 */
import type { StoreContext } from './context';
import {
  holderAcquireScript,
  holderRefreshScript,
  holderReleaseScript,
  type HolderAcquireArgs,
  type HolderAcquireReply,
  type HolderRefreshArgs,
} from './scripts/holders';
import type { NoArgs } from './scripts/define';
import type { LimitStore } from './types';

export type { LimitStore } from './types';

export function createLimitStore(ctx: StoreContext): LimitStore {
  return {
    async acquireHolder(account, kind, holderId, cap, leaseMs) {
      const [taken, held] = await ctx.run<HolderAcquireReply, HolderAcquireArgs>(
        holderAcquireScript,
        { account, holders: kind },
        { holder_id: holderId, cap, lease_ms: leaseMs },
      );
      return { taken: Number(taken) === 1, held: Number(held) };
    },
    async releaseHolders(account, kind, holderIds) {
      if (holderIds.length === 0) return 0;
      return Number(
        await ctx.run<number, NoArgs>(
          holderReleaseScript,
          { account, holders: kind },
          {},
          holderIds,
        ),
      );
    },
    async refreshHolders(account, kind, holderIds, leaseMs) {
      if (holderIds.length === 0) return 0;
      return Number(
        await ctx.run<number, HolderRefreshArgs>(
          holderRefreshScript,
          { account, holders: kind },
          { lease_ms: leaseMs },
          holderIds,
        ),
      );
    },
  };
}
