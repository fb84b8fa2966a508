/**
 * The benchmark's one coupling to the queue scripts: lua/send.lua, pull.lua and
 * ack.lua called through the typed script layer (src/store/scripts/), the way
 * src/store/queue.ts calls them, with the bench plan compiled into the scripts'
 * prelude. The raw Lua ceiling, the W5 fill and the W2 floor call the scripts
 * through these functions only.
 */
import crypto from 'node:crypto';
import { parsePlans } from '../src/config/plans';
import { accountKeys } from '../src/store/keys';
import { compactUuid } from '../src/store/records';
import type { RedisClient } from '../src/store/redis';
import { nonces } from '../src/store/queue';
import { defineScripts, runScript, type Scripts } from '../src/store/scripts';
import { ackScript } from '../src/store/scripts/ack';
import {
  callerArgs,
  scriptArgv,
  scriptKeys,
  type Caller,
  type ScriptSpec,
} from '../src/store/scripts/define';
import type { PlanTable } from '../src/store/scripts/plans';
import { pullScript } from '../src/store/scripts/pull';
import { sendScript } from '../src/store/scripts/send';
import { BENCH_PLANS } from './procs';

/** The plans relayq runs with in the benchmark (bench/procs.ts), compiled into the scripts. */
export const BENCH_PLAN_TABLE: PlanTable = { plans: parsePlans(BENCH_PLANS), defaultPlan: 'paid' };
/** relayq's default fan-out window (ms). */
const FANOUT_WINDOW_MS = 50;

/** The scripts on a connection, with the bench plans in their prelude. */
export function benchScripts(redis: RedisClient): Scripts {
  return defineScripts(redis, BENCH_PLAN_TABLE);
}

/** The raw callers: the account itself (no token, not counted against a rate). */
function accountCaller(account: string): Caller {
  return { accountId: account, tokenId: 'bench', proof: 'account', count: false };
}

/** An account caller needs the account's plan field: set it once for accounts the bench made. */
const planned = new Map<string, Promise<unknown>>();
function withPlan(redis: RedisClient, account: string): Promise<unknown> {
  let ready = planned.get(account);
  if (!ready) {
    ready = redis.hsetnx(accountKeys(account).account, 'plan', 'paid');
    planned.set(account, ready);
  }
  return ready;
}

async function call<A extends object>(
  scripts: Scripts,
  redis: RedisClient,
  spec: ScriptSpec<A>,
  account: string,
  channel: string,
  args: A,
  tail: (string | number)[],
): Promise<unknown> {
  await withPlan(redis, account);
  const keys = scriptKeys(spec, { account, channel, caller: accountCaller(account) });
  const argv = scriptArgv(spec, args, tail);
  return runScript(scripts, spec.name, keys, argv);
}

/** send of `bodies` (JSON texts, empty metadata) in one channel. */
export function sendScriptCall(
  scripts: Scripts,
  redis: RedisClient,
  account: string,
  channel: string,
  bodies: string[],
  /** each message's group_id ('' or absent for none; docs/api/groups.md) */
  groups: string[] = [],
): Promise<unknown> {
  const tail: (string | number)[] = [];
  for (const [i, b] of bodies.entries()) {
    tail.push(
      compactUuid(crypto.randomUUID()),
      0,
      Buffer.byteLength(b) + 2,
      'json',
      '',
      2,
      '{}',
      b,
      groups[i] ?? '',
    );
  }
  tail.push(FANOUT_WINDOW_MS);
  const args = {
    ...callerArgs(accountCaller(account)),
    channel,
    must_exist: '0' as const,
    webhook_id: '',
    n: bodies.length,
  };
  return call(scripts, redis, sendScript, account, channel, args, tail);
}

/** pull of up to `batch` messages, leased for 30 s, no dead-letter channel. */
export function pullScriptCall(
  scripts: Scripts,
  redis: RedisClient,
  account: string,
  channel: string,
  batch: number,
): Promise<unknown> {
  const args = {
    ...callerArgs(accountCaller(account)),
    channel,
    must_exist: '0' as const,
    visibility_timeout_ms: 30_000,
    batch_size: batch,
    nonces: nonces(batch),
    dead_letter_channel: '',
    attempt_id: '',
  };
  return call(scripts, redis, pullScript, account, channel, args, []);
}

/** ack of some lease ids, and retries of others (each available again at once). */
export function ackScriptCall(
  scripts: Scripts,
  redis: RedisClient,
  account: string,
  channel: string,
  leases: string[],
  retries: string[] = [],
): Promise<unknown> {
  const args = {
    ...callerArgs(accountCaller(account)),
    channel,
    must_exist: '0' as const,
    dead_letter_channel: '',
    a: leases.length,
  };
  return call(scripts, redis, ackScript, account, channel, args, [
    ...leases,
    retries.length,
    ...retries.flatMap((lease) => [lease, 0]),
  ]);
}
