/** Accounts and their tokens. Token secrets never reach Redis: only their sha256. */
import type { StoreContext } from './context';
import { accountKeys, duePartitionKeys, systemKeys } from './keys';
import { RelayError } from '../errors';
import {
  accountCreateScript,
  accountDeleteScript,
  accountForgetScript,
  accountGetScript,
  accountSetPlanScript,
  type AccountCreateArgs,
  type AccountDeleteReply,
  type AccountGetReply,
  type AccountSetPlanArgs,
} from './scripts/accounts';
import type { NoArgs } from './scripts/define';
import { channelDeleteScript, type ChannelDeleteArgs } from './scripts/channelDelete';
import {
  tokenCreateScript,
  tokenRevokeScript,
  type TokenCreateArgs,
  type TokenRevokeArgs,
} from './scripts/tokens';
import { authorizeScript, type AuthorizeArgs, type AuthorizeReply } from './scripts/authorize';
import { callerArgs } from './scripts/define';
import type { AccountRecord, AccountStore, AuthLookup, Authorized, TokenRecord } from './types';

export function createAccountStore(ctx: StoreContext): AccountStore {
  const get = async (id: string): Promise<AccountRecord | null> => {
    const reply = await ctx.run<AccountGetReply, NoArgs>(accountGetScript, { account: id }, {});
    if (!reply) return null;
    const [plan, created, storage, channels] = reply;
    return {
      id,
      plan,
      created_ms: Number(created),
      usage: { storage_bytes: Math.max(0, Number(storage)), channels: Number(channels) },
    };
  };

  return {
    async create(id, plan) {
      await ctx.run<unknown, AccountCreateArgs>(
        accountCreateScript,
        { account: id },
        { account: id, plan },
      );
      await ctx.command((redis) => redis.sadd(systemKeys.accounts, id));
      await ctx.replication.confirm(id);
      return (await get(id)) as AccountRecord;
    },

    get,

    async setPlan(id, plan) {
      await ctx.run<unknown, AccountSetPlanArgs>(accountSetPlanScript, { account: id }, { plan });
      await ctx.replication.confirm(id);
      return (await get(id)) as AccountRecord;
    },

    async remove(id) {
      const channels = await ctx.run<AccountDeleteReply, NoArgs>(
        accountDeleteScript,
        { account: id },
        {},
      );
      for (const channel of channels) {
        try {
          await ctx.run<unknown, ChannelDeleteArgs>(
            channelDeleteScript,
            { account: id, channel, webhooks: true },
            { channel },
          );
        } catch (err) {
          if (!(err instanceof RelayError && err.code === 'channel_not_found')) throw err;
        }
      }
      await ctx.run<unknown, NoArgs>(accountForgetScript, { account: id }, {});
      await ctx.command((redis) => redis.srem(systemKeys.accounts, id));
      await ctx.command((redis) => redis.zrem(duePartitionKeys(ctx.duePartitionOf(id)).due, id));
      await ctx.replication.confirm(id);
    },

    async createToken(account, token: TokenRecord, counted) {
      await ctx.run<unknown, TokenCreateArgs>(
        tokenCreateScript,
        { account },
        { token_id: token.id, record: JSON.stringify(token), counted: counted ? '1' : '0' },
      );
      await ctx.replication.confirm(account);
    },

    async listTokens(account) {
      if (!(await get(account))) return null;
      const all = await ctx.command((redis) => redis.hvals(accountKeys(account).tokens));
      return all
        .map((json) => JSON.parse(json) as TokenRecord)
        .sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
    },

    async revokeToken(account, tokenId) {
      await ctx.run<unknown, TokenRevokeArgs>(
        tokenRevokeScript,
        { account, id: tokenId },
        { token_id: tokenId },
      );
      await ctx.replication.confirm(account);
    },

    async lookupToken(account, tokenId): Promise<AuthLookup> {
      const keys = accountKeys(account);
      const [json, plan] = await Promise.all([
        ctx.command((redis) => redis.hget(keys.tokens, tokenId)),
        ctx.command((redis) => redis.hget(keys.account, 'plan')),
      ]);
      return { token: json ? (JSON.parse(json) as TokenRecord) : null, plan };
    },

    async authorize(caller, channel): Promise<Authorized> {
      const [json, plan] = await ctx.run<AuthorizeReply, AuthorizeArgs>(
        authorizeScript,
        { account: caller.accountId, caller },
        { ...callerArgs(caller), channel: channel ?? '' },
      );
      return { token: json ? (JSON.parse(json) as TokenRecord) : null, plan };
    },

    async count() {
      return ctx.command((redis) => redis.scard(systemKeys.accounts));
    },
  };
}
