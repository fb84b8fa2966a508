/** Accounts and their tokens. Token secrets never reach Redis: only their sha256. */
import type { StoreContext } from './context';
import {
  accountKeyList,
  accountKeys,
  channelKeyList,
  duePartitionKeys,
  historyKeyList,
  systemKeys,
  tagsKey,
  webhooksKey,
} from './keys';
import { scriptError, scriptFailure } from './storeErrors';
import { authorizeScript, type AuthorizeArgs, type AuthorizeReply } from './scripts/authorize';
import { callerArgs } from './scripts/define';
import type { AccountRecord, AccountStore, AuthLookup, Authorized, TokenRecord } from './types';

/** An account script's error as the client is told it (the one table, SCRIPT_ERRORS). */
function mapAccountErrors(err: unknown, account: string, id?: string): unknown {
  return scriptError(err, { account, id });
}

export function createAccountStore(ctx: StoreContext): AccountStore {
  const get = async (id: string): Promise<AccountRecord | null> => {
    const reply = await ctx.call<[string, string, string, number] | null>(
      'account_get',
      accountKeyList(id),
      [],
    );
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
      try {
        await ctx.call('account_create', accountKeyList(id), [id, plan]);
      } catch (err) {
        throw mapAccountErrors(err, id);
      }
      await ctx.redis.sadd(systemKeys.accounts, id);
      await ctx.replication.confirm(id);
      return (await get(id)) as AccountRecord;
    },

    get,

    async setPlan(id, plan) {
      try {
        await ctx.call('account_set_plan', accountKeyList(id), [plan]);
      } catch (err) {
        throw mapAccountErrors(err, id);
      }
      await ctx.replication.confirm(id);
      return (await get(id)) as AccountRecord;
    },

    async remove(id) {
      let channels: string[];
      try {
        channels = await ctx.call<string[]>('account_delete', accountKeyList(id), []);
      } catch (err) {
        throw mapAccountErrors(err, id);
      }
      for (const channel of channels) {
        try {
          await ctx.call(
            'channel_delete',
            [
              ...accountKeyList(id),
              ...channelKeyList(id, channel),
              webhooksKey(id),
              tagsKey(id, channel),
              ...historyKeyList(id, channel),
            ],
            [channel],
          );
        } catch (err) {
          if (scriptFailure(err)?.code !== 'CHANNEL_NOT_FOUND') throw err;
        }
      }
      await ctx.call('account_forget', accountKeyList(id), []);
      await ctx.redis.srem(systemKeys.accounts, id);
      await ctx.redis.zrem(duePartitionKeys(ctx.duePartitionOf(id)).due, id);
      await ctx.replication.confirm(id);
    },

    async createToken(account, token: TokenRecord, maxTokens) {
      try {
        await ctx.call('token_create', accountKeyList(account), [
          token.id,
          JSON.stringify(token),
          maxTokens,
        ]);
      } catch (err) {
        throw mapAccountErrors(err, account);
      }
      await ctx.replication.confirm(account);
    },

    async listTokens(account) {
      if (!(await get(account))) return null;
      const all = await ctx.redis.hvals(accountKeys(account).tokens);
      return all
        .map((json) => JSON.parse(json) as TokenRecord)
        .sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
    },

    async revokeToken(account, tokenId) {
      try {
        await ctx.call('token_revoke', accountKeyList(account), [tokenId]);
      } catch (err) {
        throw mapAccountErrors(err, account, tokenId);
      }
      await ctx.replication.confirm(account);
    },

    async lookupToken(account, tokenId): Promise<AuthLookup> {
      const keys = accountKeys(account);
      const [json, plan] = await Promise.all([
        ctx.redis.hget(keys.tokens, tokenId),
        ctx.redis.hget(keys.account, 'plan'),
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
      return ctx.redis.scard(systemKeys.accounts);
    },
  };
}
