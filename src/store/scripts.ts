/**
 * The Lua scripts and the number of KEYS each takes. Scripts are read from lua/
 * with lua/lib/common.lua prepended, registered as ioredis commands (EVALSHA
 * with a fallback to EVAL, so a SCRIPT FLUSH or a Redis restart is survived),
 * and loaded at start-up: the service is not ready until they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClient } from './redis';

export const SCRIPT_KEY_COUNTS = {
  send: 12,
  pull: 18,
  ack: 18,
  extend: 12,
  release: 12,
  sweep_channel: 18,
  due_channels: 6,
  announce_channel: 6,
  claim_due_accounts: 3,
  release_due_account: 1,
  lower_due_account: 1,
  authenticate: 6,
  account_create: 6,
  account_get: 6,
  account_set_plan: 6,
  account_delete: 6,
  account_forget: 6,
  token_create: 6,
  token_revoke: 6,
  channel_stats: 12,
  channel_configure: 12,
  channel_purge: 12,
  channel_delete: 13,
  dead_letter_sources: 12,
  redrive: 18,
  rate_limit: 2,
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
  webhook_received: 1,
} as const;

export type ScriptName = keyof typeof SCRIPT_KEY_COUNTS;

/** Scripts whose callers pass a variable number of keys (SCRIPT_KEY_COUNTS is the fixed part). */
export const VARIABLE_KEYS: ReadonlySet<ScriptName> = new Set<ScriptName>(['account_gauges']);

function luaDir(): string {
  for (const candidate of [
    path.resolve(__dirname, '..', '..', 'lua'),
    path.resolve(__dirname, '..', '..', '..', 'lua'),
  ]) {
    if (fs.existsSync(path.join(candidate, 'lib', 'common.lua'))) return candidate;
  }
  throw new Error(`cannot find the lua/ folder next to ${__dirname}`);
}

let cachedSources: Record<ScriptName, string> | null = null;

/** The full text of every script, with the shared library prepended. */
export function scriptSources(): Record<ScriptName, string> {
  if (cachedSources) return cachedSources;
  const dir = luaDir();
  const lib = fs.readFileSync(path.join(dir, 'lib', 'common.lua'), 'utf8');
  const sources = {} as Record<ScriptName, string>;
  for (const name of Object.keys(SCRIPT_KEY_COUNTS) as ScriptName[]) {
    sources[name] = `${lib}\n${fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8')}`;
  }
  cachedSources = sources;
  return sources;
}

export function scriptPath(name: ScriptName): string {
  return path.join(luaDir(), `${name}.lua`);
}

type ScriptFn = (...args: (string | number | Buffer)[]) => Promise<unknown>;
export type Scripts = Record<ScriptName, ScriptFn>;

/** Registers every script on the client; returns typed callers. */
export function defineScripts(redis: RedisClient): Scripts {
  const sources = scriptSources();
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

/** SCRIPT LOAD on every master, so the first requests find the scripts cached. */
export async function loadScripts(redis: RedisClient): Promise<void> {
  const sources = Object.values(scriptSources());
  const nodes =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    for (const source of sources) {
      await node.script('LOAD', source);
    }
  }
}
