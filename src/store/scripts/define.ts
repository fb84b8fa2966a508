/**
 * The typed script layer (one module per script beside this file): a script's KEYS are
 * built by name from what the call is about, its ARGV from one named object in the
 * header's order, and its error codes become errors through one table (scriptErrors.ts).
 * test/unit/luaHeaders.test.ts checks each module's KEYS groups and ARGV names against
 * the script's header.
 */
import {
  accountKeyList,
  accountRateKey,
  channelKeyList,
  historyKeyList,
  rateLimitKey,
  tagsKey,
  webhookRefusalsKey,
  webhooksKey,
} from '../keys';
import type { Caller } from '../../types';
import type { ScriptName } from './index';

export type { Caller };

/**
 * The groups of keys a script takes, in this order; deadLetter and webhooks only when the call
 * names them (the script sees #KEYS).
 */
export const KEY_GROUPS = {
  account: ['account', 'channels', 'timers', 'usage', 'events', 'tokens'],
  channel: ['q', 'f', 'm', 'x', 'd', 'dx'],
  caller: ['rate', 'token_rate'],
  history: ['h', 'hi', 'he'],
  deadLetter: ['q', 'f', 'm', 'x', 'd', 'dx'],
  webhooks: ['webhooks'],
  refusals: ['refusals'],
  tags: ['tags'],
} as const;

export type KeyGroup = keyof typeof KEY_GROUPS;

/** The caller's three ARGV, the first of every script that checks a caller. */
export interface CallerArgs {
  token_id: string;
  proof: string;
  rate: '0' | '1';
}

export function callerArgs(caller: Caller): CallerArgs {
  return { token_id: caller.tokenId, proof: caller.proof, rate: caller.count ? '1' : '0' };
}

export interface ScriptSpec<A extends object> {
  name: ScriptName;
  /** the key groups in KEYS order (deadLetter: only when the call names one) */
  keys: readonly KeyGroup[];
  /** the names of the fixed ARGV, in the header's order; a variable tail may follow */
  argv: readonly (keyof A & string)[];
}

/** Any script's spec, as tests and registries list them. */
export interface AnyScriptSpec {
  name: ScriptName;
  keys: readonly KeyGroup[];
  argv: readonly string[];
}

export interface ScriptKeys {
  account: string;
  channel?: string;
  /** the caller whose rate counters the script counts */
  caller?: Caller;
  /** the dead-letter channel, or null/'' for none (its keys are then left out) */
  deadLetter?: string | null;
  /** true to pass the account's webhooks hash (left out otherwise) */
  webhooks?: boolean;
  /** the webhook whose refusal window the script counts (the refusals group) */
  webhookId?: string;
}

const KEY_CACHE_MAX = 10_000;
const channelKeyCache = new Map<string, string[]>();

/** The account's and a channel's keys, in the scripts' order (built once per pair). */
function accountAndChannelKeys(account: string, channel: string): string[] {
  const cacheKey = `${account}\u0000${channel}`;
  let keys = channelKeyCache.get(cacheKey);
  if (!keys) {
    if (channelKeyCache.size >= KEY_CACHE_MAX) channelKeyCache.clear();
    keys = [...accountKeyList(account), ...channelKeyList(account, channel)];
    channelKeyCache.set(cacheKey, keys);
  }
  return keys;
}

/** The KEYS of one call of the script, by group (every script starts with the account's). */
export function scriptKeys<A extends object>(spec: ScriptSpec<A>, on: ScriptKeys): string[] {
  const keys =
    spec.keys[1] === 'channel'
      ? accountAndChannelKeys(on.account, required(spec, on.channel, 'channel')).slice()
      : accountKeyList(on.account);
  for (const group of spec.keys) {
    if (group === 'caller') {
      const caller = required(spec, on.caller, 'caller');
      keys.push(accountRateKey(on.account), rateLimitKey(on.account, caller.tokenId));
    } else if (group === 'history') {
      keys.push(...historyKeyList(on.account, required(spec, on.channel, 'channel')));
    } else if (group === 'deadLetter' && on.deadLetter) {
      keys.push(...channelKeyList(on.account, on.deadLetter));
    } else if (group === 'webhooks' && on.webhooks) {
      keys.push(webhooksKey(on.account));
    } else if (group === 'refusals') {
      keys.push(webhookRefusalsKey(on.account, required(spec, on.webhookId, 'refusals')));
    } else if (group === 'tags') {
      keys.push(tagsKey(on.account, required(spec, on.channel, 'channel')));
    }
  }
  return keys;
}

function required<T, A extends object>(
  spec: ScriptSpec<A>,
  value: T | undefined,
  group: string,
): T {
  if (value === undefined) throw new Error(`${spec.name} needs the ${group} keys`);
  return value;
}

/** The fixed ARGV in the header's order, then the variable tail. */
export function scriptArgv<A extends object>(
  spec: ScriptSpec<A>,
  args: A,
  tail: readonly (string | number)[] = [],
): (string | number)[] {
  const values = spec.argv.map((name) => args[name] as unknown as string | number);
  return tail.length === 0 ? values : values.concat(tail);
}

export function defineScript<A extends object>(spec: ScriptSpec<A>): ScriptSpec<A> {
  return spec;
}
