/** lua/account_*.lua: create, read, re-plan and delete (in two steps) an account. */
import { defineScript, type NoArgs } from './define';

export interface AccountCreateArgs {
  account: string;
  plan: string;
}

export const accountCreateScript = defineScript<AccountCreateArgs>({
  name: 'account_create',
  keys: ['account'],
  argv: ['account', 'plan'],
});

/** [plan, created ms, storage bytes, channel count], or null when there is no such account */
export type AccountGetReply = [string, string, string, number] | null;

export const accountGetScript = defineScript<NoArgs>({
  name: 'account_get',
  keys: ['account'],
  argv: [],
});

export interface AccountSetPlanArgs {
  plan: string;
}

export const accountSetPlanScript = defineScript<AccountSetPlanArgs>({
  name: 'account_set_plan',
  keys: ['account'],
  argv: ['plan'],
});

/** the account's channels, whose keys channel_delete then removes */
export type AccountDeleteReply = string[];

export const accountDeleteScript = defineScript<NoArgs>({
  name: 'account_delete',
  keys: ['account'],
  argv: [],
});

export const accountForgetScript = defineScript<NoArgs>({
  name: 'account_forget',
  keys: ['account'],
  argv: [],
});
