/**
 * The Lua scripts. Each takes the KEYS its header says (header.ts reads them). Scripts are read from lua/
 * with the plan prelude (plans.ts), lua/lib/common.lua, lua/lib/caller.lua and lua/lib/history.lua prepended
 * (and lua/lib/destination.lua to the destination_* scripts), registered as ioredis commands (EVALSHA
 * with a fallback to EVAL, so a SCRIPT FLUSH or a Redis restart is survived),
 * and loaded at start-up: the service is not ready until they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../redis';
import { headerKeys, headerOf, type HeaderKeys } from './header';
import { DEFAULT_PLAN_TABLE, planPrelude, type PlanTable } from './plans';

/** Every script in lua/ by name (test/unit/luaHeaders.test.ts checks the folder against it). */
export const SCRIPT_NAMES = [
  'send',
  'send_routed',
  'routes_set',
  'pull',
  'ack',
  'extend',
  'release',
  'sweep_channel',
  'due_channels',
  'announce_channel',
  'claim_due_accounts',
  'release_due_account',
  'lower_due_account',
  'authorize',
  'account_create',
  'account_get',
  'account_set_plan',
  'account_delete',
  'account_forget',
  'token_create',
  'token_revoke',
  'channel_stats',
  'channel_configure',
  'channel_purge',
  'channel_delete',
  'channel_tags',
  'dead_letter_sources',
  'redrive',
  'holder_acquire',
  'holder_release',
  'holder_refresh',
  'account_gauges',
  'gauges_fold',
  'gauges_read',
  'webhook_create',
  'webhook_delete',
  'webhook_lookup',
  'webhook_refused',
  'replay_claim',
  'replay_progress',
  'replay_cancel',
  'destination_save',
  'destination_delete',
  'destination_redrive',
  'destination_take',
  'destination_result',
] as const;

export type ScriptName = (typeof SCRIPT_NAMES)[number];

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
let cachedKeys: Record<ScriptName, HeaderKeys> | null = null;

/** The KEYS each script takes, as its header says. */
export function scriptKeyCounts(): Record<ScriptName, HeaderKeys> {
  if (cachedKeys) return cachedKeys;
  const dir = luaDir();
  const counts = {} as Record<ScriptName, HeaderKeys>;
  for (const name of SCRIPT_NAMES) {
    const source = fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8');
    counts[name] = headerKeys(headerOf(name, source));
  }
  cachedKeys = counts;
  return counts;
}

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
  const destinationLib = fs.readFileSync(path.join(dir, 'lib', 'destination.lua'), 'utf8');
  for (const name of SCRIPT_NAMES) {
    const own = name.startsWith('destination_') ? `${destinationLib}\n` : '';
    sources[name] =
      `${prelude}${lib}\n${own}${fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8')}`;
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
  const keys = scriptKeyCounts();
  const callers = {} as Scripts;
  for (const name of SCRIPT_NAMES) {
    const command = `rq_${name}`;
    const { fixed, variable } = keys[name];
    redis.defineCommand(command, {
      // without numberOfKeys, ioredis takes the key count as the first argument
      ...(variable ? {} : { numberOfKeys: fixed }),
      lua: sources[name],
    });
    callers[name] = (redis as unknown as Record<string, ScriptFn>)[command].bind(redis);
  }
  return callers;
}

/**
 * Runs a script with its KEYS and ARGV: a script whose KEYS count varies (its header says so)
 * takes the count first, as ioredis expects of a command defined without numberOfKeys.
 */
export function runScript(
  scripts: Scripts,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const script = scripts[name];
  return scriptKeyCounts()[name].variable
    ? script(keys.length, ...keys, ...args)
    : script(...keys, ...args);
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
