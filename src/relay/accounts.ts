/** Accounts: their owner's view, and the operator's create, read, plan change and delete. */
import { RelayError, invalidField } from '../errors';
import { LIMITS } from '../schemas/requests';
import type { AccountRecord } from '../store/types';
import type { RelayDeps } from './deps';

export const accountNotFound = (id: string) =>
  new RelayError('account_not_found', `account ${id} does not exist`);

export function createAccounts(deps: RelayDeps) {
  const { store, plans } = deps;
  const checkPlan = (plan: string) => {
    if (!plans.has(plan)) throw invalidField(`plan must be one of ${plans.names().join(', ')}`);
  };
  return {
    async get(id: string): Promise<AccountRecord> {
      const account = await store.accounts.get(id);
      if (!account) throw accountNotFound(id);
      return account;
    },

    /** The account, or null when it does not exist. */
    async find(id: string): Promise<AccountRecord | null> {
      return store.accounts.get(id);
    },

    /** True when the configuration has a plan of that name. */
    hasPlan(name: string): boolean {
      return plans.has(name);
    },

    /** The account with its plan's limits, as its owner sees it. */
    async view(id: string) {
      const account = await this.get(id);
      return {
        ...account,
        limits: { ...plans.limits(account.plan), max_message_bytes: LIMITS.maxMessageBytes },
      };
    },

    async create(id: string, plan: string = deps.config.defaultPlan): Promise<AccountRecord> {
      checkPlan(plan);
      return store.accounts.create(id, plan);
    },

    async setPlan(id: string, plan: string): Promise<AccountRecord> {
      checkPlan(plan);
      return store.accounts.setPlan(id, plan);
    },

    async remove(id: string): Promise<void> {
      await store.accounts.remove(id);
    },

    /** How many accounts exist (the embedded quick start creates one when there is none). */
    async count(): Promise<number> {
      return store.accounts.count();
    },

    /** The limits of the account's plan. */
    limitsOf(account: AccountRecord) {
      return plans.limits(account.plan);
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
