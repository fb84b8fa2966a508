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
  destinationKeyList,
  duePartitionKeys,
  historyKeyList,
  holdersKey,
  rateLimitKey,
  routesKey,
  systemKeys,
  tagsKey,
  webhookRefusalsKey,
  replayKeys,
  webhooksKey,
  type HolderKind,
} from '../keys';
import type { Caller } from '../../types';
import type { ScriptName } from './index';

export type { Caller };

/**
 * The groups of keys a script takes, in its header's order (`KEYS[a..b] <group> keys: ...`);
 * deadLetter and webhooks may be optional (the header says "absent when"; the script sees
 * #KEYS), channels repeats for each channel named (account_gauges).
 */
export const KEY_GROUPS = {
  account: ['account', 'channels', 'timers', 'usage', 'events', 'tokens'],
  channel: ['q', 'f', 'm', 'x', 'd', 'dx'],
  caller: ['rate', 'token_rate'],
  /** the channel's history (lua/lib/history.lua) */
  history: ['h', 'hi', 'he'],
  deadLetter: ['q', 'f', 'm', 'x', 'd', 'dx'],
  /** a second channel: redrive's target, sweep_channel's dead-letter channel (or its own) */
  target: ['q', 'f', 'm', 'x', 'd', 'dx'],
  /** a channel's bulk replay jobs (lua/replay_*.lua) */
  replay: ['jobs', 'order', 'lease'],
  webhooks: ['webhooks'],
  refusals: ['refusals'],
  tags: ['tags'],
  routes: ['routes'],
  holders: ['holders'],
  /** a partition of the due index (keys.ts duePartitionKeys) */
  due: ['due'],
  partition: ['owner', 'pods'],
  /** the service-wide gauges, as gauges_fold and gauges_read take them */
  fold: ['gauges', 'gauge_accounts', 'gauge_oldest', 'gauge_expiry'],
  totals: ['gauges', 'gauge_oldest', 'accounts', 'gauge_expiry'],
  channels: ['q', 'f', 'm', 'x', 'd', 'dx'],
  destination: ['destination', 'attempts', 'window', 'dead'],
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

/** What one call is about: the keys of its groups are built from these. */
export interface ScriptKeys {
  /** the account (every group but the due index's and the gauges' is the account's) */
  account?: string;
  channel?: string;
  /** the caller whose rate counters the script counts */
  caller?: Caller;
  /** the dead-letter channel, or null/'' for none (its keys are then left out) */
  deadLetter?: string | null;
  /** the second channel (the target group) */
  target?: string;
  /** true to pass the account's webhooks hash (left out otherwise) */
  webhooks?: boolean;
  /** the webhook whose refusal window the script counts (the refusals group) */
  webhookId?: string;
  /** the kind of holders leased (the holders group) */
  holders?: HolderKind;
  /** the partition of the due index (the due and partition groups) */
  partition?: number;
  /** the channels whose keys follow, in order (the channels group) */
  channels?: readonly string[];
  /** the token or webhook the call is about, as its errors name it */
  id?: string;
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

/** The KEYS of one call of the script, group by group in the spec's order. */
export function scriptKeys<A extends object>(spec: ScriptSpec<A>, on: ScriptKeys): string[] {
  const groups = spec.keys;
  const both = groups[0] === 'account' && groups[1] === 'channel';
  const keys = both
    ? accountAndChannelKeys(
        need(spec, on.account, 'account'),
        need(spec, on.channel, 'channel'),
      ).slice()
    : [];
  for (let i = both ? 2 : 0; i < groups.length; i++) {
    const group = groups[i];
    if (group === 'deadLetter') {
      if (on.deadLetter) keys.push(...channelKeyList(need(spec, on.account, group), on.deadLetter));
    } else if (group === 'webhooks') {
      if (on.webhooks) keys.push(webhooksKey(need(spec, on.account, group)));
    } else if (group === 'channels') {
      const account = need(spec, on.account, group);
      for (const channel of need(spec, on.channels, group)) {
        keys.push(...channelKeyList(account, channel));
      }
    } else {
      keys.push(...groupKeys(spec, group, on));
    }
  }
  return keys;
}

/** The keys of one always-present group. */
function groupKeys<A extends object>(
  spec: ScriptSpec<A>,
  group: KeyGroup,
  on: ScriptKeys,
): string[] {
  switch (group) {
    case 'account':
      return accountKeyList(need(spec, on.account, group));
    case 'channel':
      return channelKeyList(need(spec, on.account, group), need(spec, on.channel, group));
    case 'history':
      return historyKeyList(need(spec, on.account, group), need(spec, on.channel, group));
    case 'replay': {
      const r = replayKeys(need(spec, on.account, group), need(spec, on.channel, group));
      return [r.jobs, r.order, r.lease];
    }
    case 'target':
      return channelKeyList(need(spec, on.account, group), need(spec, on.target, group));
    case 'caller': {
      const account = need(spec, on.account, group);
      return [accountRateKey(account), rateLimitKey(account, need(spec, on.caller, group).tokenId)];
    }
    case 'refusals':
      return [webhookRefusalsKey(need(spec, on.account, group), need(spec, on.webhookId, group))];
    case 'routes':
      return [routesKey(need(spec, on.account, group))];
    case 'tags':
      return [tagsKey(need(spec, on.account, group), need(spec, on.channel, group))];
    case 'destination':
      return destinationKeyList(need(spec, on.account, group), need(spec, on.channel, group));
    case 'holders':
      return [holdersKey(need(spec, on.account, group), need(spec, on.holders, group))];
    case 'due':
      return [duePartitionKeys(need(spec, on.partition, group)).due];
    case 'partition': {
      const keys = duePartitionKeys(need(spec, on.partition, group));
      return [keys.owner, keys.pods];
    }
    case 'fold':
      return [
        systemKeys.gauges,
        systemKeys.gaugeAccounts,
        systemKeys.gaugeOldest,
        systemKeys.gaugeExpiry,
      ];
    case 'totals':
      return [
        systemKeys.gauges,
        systemKeys.gaugeOldest,
        systemKeys.accounts,
        systemKeys.gaugeExpiry,
      ];
    default:
      throw new Error(`${spec.name}: the ${group} keys are built by scriptKeys`);
  }
}

function need<T, A extends object>(spec: ScriptSpec<A>, value: T | undefined, group: string): T {
  if (value === undefined) throw new Error(`${spec.name} needs what its ${group} keys are of`);
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

/** The ARGV of a script that takes none (or only a variable tail). */
export type NoArgs = Record<string, never>;

export function defineScript<A extends object>(spec: ScriptSpec<A>): ScriptSpec<A> {
  return spec;
}
