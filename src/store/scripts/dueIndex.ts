/** lua/claim_due_accounts.lua, lua/release_due_account.lua, lua/lower_due_account.lua: the due index. */
import { defineScript } from './define';

export interface ClaimDueAccountsArgs {
  claim_ms: number;
  limit: number;
  pod_id: string;
  lease_ms: number;
  mode: 'take' | 'leave';
}

export const claimDueAccountsScript = defineScript<ClaimDueAccountsArgs>({
  name: 'claim_due_accounts',
  keys: ['due', 'partition'],
  argv: ['claim_ms', 'limit', 'pod_id', 'lease_ms', 'mode'],
});

/** [ms another pod still owns it (0: this pod, -1: nobody), pods seen, [account, claim, ...]] */
export type ClaimDueAccountsReply = [number, number, string[]];

export interface ReleaseDueAccountArgs {
  account: string;
  claim_score: string;
  /** '' for none */
  next_due_ms: number | '';
}

export const releaseDueAccountScript = defineScript<ReleaseDueAccountArgs>({
  name: 'release_due_account',
  keys: ['due'],
  argv: ['account', 'claim_score', 'next_due_ms'],
});

export interface LowerDueAccountArgs {
  account: string;
  due_ms: number;
}

export const lowerDueAccountScript = defineScript<LowerDueAccountArgs>({
  name: 'lower_due_account',
  keys: ['due'],
  argv: ['account', 'due_ms'],
});

/** 1 when the entry was added or lowered, else 0 */
export type LowerDueAccountReply = number;
