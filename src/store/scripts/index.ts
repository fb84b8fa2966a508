/**
 * The Lua scripts and the number of KEYS each takes. Scripts are read from lua/
 * with the plan prelude (plans.ts), lua/lib/common.lua and lua/lib/caller.lua prepended, registered as ioredis commands (EVALSHA
 * with a fallback to EVAL, so a SCRIPT FLUSH or a Redis restart is survived),
 * and loaded at start-up: the service is not ready until they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../redis';
import { DEFAULT_PLAN_TABLE, planPrelude, type PlanTable } from './plans';

export const SCRIPT_KEY_COUNTS = {
  // account, channel and caller keys (the typed modules beside this file name them)
  send: 17,
  // then the dead-letter channel's keys when the channel has one (VARIABLE_KEYS)
  pull: 17,
  ack: 17,
  extend: 14,
  release: 12,
  sweep_channel: 21,
  due_channels: 6,
  announce_channel: 12,
  claim_due_accounts: 3,
  release_due_account: 1,
  lower_due_account: 1,
  authorize: 8,
  account_create: 6,
  account_get: 6,
  account_set_plan: 6,
  account_delete: 6,
  account_forget: 6,
  token_create: 6,
  token_revoke: 6,
  channel_stats: 12,
  channel_configure: 15,
  channel_purge: 15,
  channel_delete: 17,
  channel_tags: 7,
  dead_letter_sources: 12,
  redrive: 18,
  holder_acquire: 1,
  holder_release: 1,
  holder_refresh: 1,
  // account keys, then 6 keys per channel: the caller passes the count (VARIABLE_KEYS)
  account_gauges: 6,
  gauges_fold: 4,
  gauges_read: 4,
  webhook_create: 7,
  webhook_delete: 1,
  webhook_lookup: 7,
  webhook_refused: 8,
  // bulk replay jobs of a channel (src/store/replays.ts)
  replay_claim: 3,
  replay_progress: 2,
  replay_cancel: 1,
} as const;

export type ScriptName = keyof typeof SCRIPT_KEY_COUNTS;

/** Scripts whose callers pass a variable number of keys (SCRIPT_KEY_COUNTS is the fixed part). */
export const VARIABLE_KEYS: ReadonlySet<ScriptName> = new Set<ScriptName>([
  'account_gauges',
  'send',
  'pull',
  'ack',
]);

function luaDir(): string {
  for (const candidate of [
    path.resolve(__dirname, '..', '..', '..', 'lua'),
    path.resolve(__dirname, '..', '..', '..', '..', 'lua'),
  ]) {
    if (fs.existsSync(path.join(candidate, 'lib', 'common.lua'))) return candidate;
  }
  throw new Error(`cannot find the lua/ folder next to ${__dirname}`);
}

const cachedSources = new Map<string, Record<ScriptName, string>>();

/** The full text of every script: the plan prelude and the shared libraries prepended. */
export function scriptSources(
  planTable: PlanTable = DEFAULT_PLAN_TABLE,
): Record<ScriptName, string> {
  const prelude = planPrelude(planTable);
  const cached = cachedSources.get(prelude);
  if (cached) return cached;
  const dir = luaDir();
  const lib = ['common', 'caller', 'history']
    .map((name) => fs.readFileSync(path.join(dir, 'lib', `${name}.lua`), 'utf8'))
    .join('\n');
  const sources = {} as Record<ScriptName, string>;
  for (const name of Object.keys(SCRIPT_KEY_COUNTS) as ScriptName[]) {
    sources[name] = `${prelude}${lib}\n${fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8')}`;
  }
  cachedSources.set(prelude, sources);
  return sources;
}

export function scriptPath(name: ScriptName): string {
  return path.join(luaDir(), `${name}.lua`);
}

type ScriptFn = (...args: (string | number | Buffer)[]) => Promise<unknown>;
export type Scripts = Record<ScriptName, ScriptFn>;

/** Registers every script on the client; returns typed callers. */
export function defineScripts(
  redis: RedisClient,
  planTable: PlanTable = DEFAULT_PLAN_TABLE,
): Scripts {
  const sources = scriptSources(planTable);
  const callers = {} as Scripts;
  for (const name of Object.keys(SCRIPT_KEY_COUNTS) as ScriptName[]) {
    const command = `rq_${name}`;
    const variable = VARIABLE_KEYS.has(name);
    redis.defineCommand(command, {
      // without numberOfKeys, ioredis takes the key count as the first argument
      ...(variable ? {} : { numberOfKeys: SCRIPT_KEY_COUNTS[name] }),
      lua: sources[name],
    });
    callers[name] = (redis as unknown as Record<string, ScriptFn>)[command].bind(redis);
  }
  return callers;
}

/**
 * Runs a script with its KEYS and ARGV: a script whose KEYS count varies (VARIABLE_KEYS)
 * takes the count first, as ioredis expects of a command defined without numberOfKeys.
 */
export function runScript(
  scripts: Scripts,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const script = scripts[name];
  return VARIABLE_KEYS.has(name) ? script(keys.length, ...keys, ...args) : script(...keys, ...args);
}

/** SCRIPT LOAD on every master, so the first requests find the scripts cached. */
export async function loadScripts(
  redis: RedisClient,
  planTable: PlanTable = DEFAULT_PLAN_TABLE,
): Promise<void> {
  const sources = Object.values(scriptSources(planTable));
  const nodes =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    for (const source of sources) {
      await node.script('LOAD', source);
    }
  }
}
