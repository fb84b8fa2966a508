/** Accounts and their tokens. Token secrets never reach Redis: only their sha256. */
import { AppError, notFound } from '../errors';
import type { StoreContext } from './context';
import { accountKeyList, channelKeyList, systemKeys } from './keys';
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
      return (await get(id)) as AccountRecord;
    },

    get,

    async setPlan(id, plan) {
      try {
        await ctx.call('account_set_plan', accountKeyList(id), [plan]);
      } catch (err) {
        throw mapAccountErrors(err, id);
      }
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
            [...accountKeyList(id), ...channelKeyList(id, channel)],
            [channel],
          );
        } catch (err) {
          if (scriptFailure(err)?.code !== 'CHANNEL_NOT_FOUND') throw err;
        }
      }
      await ctx.call('account_forget', accountKeyList(id), []);
      await ctx.redis.srem(systemKeys.accounts, id);
      await ctx.redis.zrem(systemKeys.due, id);
    },

    async createToken(account, token: TokenRecord) {
      try {
        await ctx.call('token_create', accountKeyList(account), [token.id, JSON.stringify(token)]);
      } catch (err) {
        throw mapAccountErrors(err, account);
      }
    },

    async listTokens(account) {
      if (!(await get(account))) return null;
      const all = await ctx.redis.hvals(accountKeyList(account)[5]);
      return all
        .map((json) => JSON.parse(json) as TokenRecord)
        .sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
    },

    async revokeToken(account, tokenId) {
      try {
        await ctx.call('token_revoke', accountKeyList(account), [tokenId]);
      } catch (err) {
        if (scriptFailure(err)?.code === 'TOKEN_NOT_FOUND') {
          throw notFound(`token ${tokenId} does not exist in account ${account}`);
        }
        throw mapAccountErrors(err, account);
      }
    },

    async lookupToken(account, tokenId): Promise<AuthLookup> {
      const [json, plan] = await ctx.call<[string | null, string | null]>(
        'authenticate',
        accountKeyList(account),
        [tokenId],
      );
      return { token: json ? (JSON.parse(json) as TokenRecord) : null, plan };
    },

    async count() {
      return ctx.redis.scard(systemKeys.accounts);
    },
  };
}
