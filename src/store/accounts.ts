/** Accounts and their tokens. Token secrets never reach Redis: only their sha256. */
import { AppError, forbidden, notFound } from '../errors';
import type { StoreContext } from './context';
import { accountKeyList, channelKeyList, duePartitionKeys, systemKeys, webhooksKey } from './keys';
import { scriptFailure } from './storeErrors';
import type { AccountRecord, AccountStore, AuthLookup, TokenRecord } from './types';

function accountNotFound(id: string): AppError {
  return notFound(`account ${id} does not exist`);
}

function mapAccountErrors(err: unknown, id: string): unknown {
  const code = scriptFailure(err)?.code;
  if (code === 'ACCOUNT_NOT_FOUND') return accountNotFound(id);
  if (code === 'ACCOUNT_EXISTS') return new AppError('CONFLICT', `account ${id} already exists`);
  return err;
}

const AUTH_CACHE_MAX = 10_000;

export function createAccountStore(ctx: StoreContext, authCacheMs = 0): AccountStore {
  /** account -> token id -> a found token lookup and when it was read (RELAY_AUTH_CACHE_MS) */
  const authCache = new Map<string, Map<string, { at: number; value: AuthLookup }>>();
  let cachedLookups = 0;
  /** bumped by every forget, so a lookup that raced a revocation is not cached */
  let generation = 0;
  const forgetAuth = (account: string) => {
    generation++;
    const tokens = authCache.get(account);
    if (tokens) cachedLookups -= tokens.size;
    authCache.delete(account);
  };

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
      forgetAuth(id);
      try {
        await ctx.call('account_set_plan', accountKeyList(id), [plan]);
      } catch (err) {
        throw mapAccountErrors(err, id);
      } finally {
        forgetAuth(id);
      }
      await ctx.replication.confirm(id);
      return (await get(id)) as AccountRecord;
    },

    async remove(id) {
      forgetAuth(id);
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
            [...accountKeyList(id), ...channelKeyList(id, channel), webhooksKey(id)],
            [channel],
          );
        } catch (err) {
          if (scriptFailure(err)?.code !== 'CHANNEL_NOT_FOUND') throw err;
        }
      }
      await ctx.call('account_forget', accountKeyList(id), []);
      forgetAuth(id);
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
        const failure = scriptFailure(err);
        if (failure?.code === 'TOKEN_LIMIT') {
          throw forbidden(
            `token limit reached: the plan allows at most ${failure.detail} tokens per account (max_tokens); revoke one first`,
          );
        }
        throw mapAccountErrors(err, account);
      }
      await ctx.replication.confirm(account);
    },

    async listTokens(account) {
      if (!(await get(account))) return null;
      const all = await ctx.redis.hvals(accountKeyList(account)[5]);
      return all
        .map((json) => JSON.parse(json) as TokenRecord)
        .sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
    },

    async revokeToken(account, tokenId) {
      forgetAuth(account);
      try {
        await ctx.call('token_revoke', accountKeyList(account), [tokenId]);
        forgetAuth(account);
      } catch (err) {
        if (scriptFailure(err)?.code === 'TOKEN_NOT_FOUND') {
          throw notFound(`token ${tokenId} does not exist in account ${account}`);
        }
        throw mapAccountErrors(err, account);
      }
      await ctx.replication.confirm(account);
    },

    async lookupToken(account, tokenId): Promise<AuthLookup> {
      const hit = authCacheMs > 0 ? authCache.get(account)?.get(tokenId) : undefined;
      if (hit && Date.now() - hit.at < authCacheMs) return hit.value;
      const startedAt = generation;
      const [json, plan] = await ctx.call<[string | null, string | null]>(
        'authenticate',
        accountKeyList(account),
        [tokenId],
      );
      const value = { token: json ? (JSON.parse(json) as TokenRecord) : null, plan };
      if (authCacheMs > 0 && value.token && value.plan !== null && startedAt === generation) {
        if (cachedLookups >= AUTH_CACHE_MAX) {
          authCache.clear();
          cachedLookups = 0;
        }
        let tokens = authCache.get(account);
        if (!tokens) authCache.set(account, (tokens = new Map()));
        if (!tokens.has(tokenId)) cachedLookups++;
        tokens.set(tokenId, { at: Date.now(), value });
      }
      return value;
    },

    async count() {
      return ctx.redis.scard(systemKeys.accounts);
    },
  };
}
