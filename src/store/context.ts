/**
 * What every store module shares: the script callers (timed and counted), the
 * partitioned due index, coalesced fan-out, and a small cache of each channel's dead-letter target
 * (scripts verify it, so a stale entry costs one retry, never a wrong move).
 */
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';
import { FanoutFlusher } from './fanout';
import { ReplicationGate, type DurabilityOptions } from './replication';
import { accountOfAccountKey, duePartitionOf } from './keys';
import type { RedisClient } from './redis';
import { runScript, type ScriptName, type Scripts } from './scripts';
import type { PlanTable } from './scripts/plans';
import {
  announceChannelScript,
  type AnnounceChannelArgs,
  type AnnounceChannelReply,
} from './scripts/announceChannel';
import {
  lowerDueAccountScript,
  type LowerDueAccountArgs,
  type LowerDueAccountReply,
} from './scripts/dueIndex';
import { scriptArgv, scriptKeys, type ScriptKeys, type ScriptSpec } from './scripts/define';
import { isUnavailable, rethrowStoreError, scriptError, scriptFailure } from './storeErrors';
import { unavailable } from '../errors';

export interface StoreOptions {
  /** the configured plans, compiled into the scripts (scripts/plans.ts) */
  planTable?: PlanTable;
  durability?: DurabilityOptions;
  fanoutWindowMs?: number;
  duePartitions?: number;
  logger?: Logger;
}

const DLQ_CACHE_MAX = 10_000;

/** Scripts that can change an account's backlog, storage or channels (what the gauges show). */
const CHANGES_BACKLOG: ReadonlySet<ScriptName> = new Set<ScriptName>([
  'send',
  'pull',
  'ack',
  'release',
  'sweep_channel',
  'redrive',
  'channel_configure',
  'channel_purge',
  'channel_delete',
  'account_create',
  'account_delete',
  'account_forget',
  'destination_save',
  'destination_delete',
  'destination_redrive',
  'destination_take',
  'destination_result',
]);
const DLQ_CACHE_TTL_MS = 5_000;

/**
 * While Redis is unreachable, one command in this interval probes it; the others fail at once.
 * The first command that succeeds (or the client's reconnection) ends it, so the store answers
 * again within this interval of Redis answering.
 */
const PROBE_MS = 250;

export class StoreContext {
  private readonly deadLetterTargets = new Map<string, { dlq: string; at: number }>();
  /** Called with the account after each script that may have changed its backlog. */
  onBacklogChange: ((account: string) => void) | null = null;
  /** true after a call found Redis unreachable, until a call succeeds or the client is ready again */
  private unreachable = false;
  private nextProbe = 0;
  private readonly unreachableListeners: (() => void)[] = [];
  /** Publishes the new_message announcements that scripts left pending. */
  readonly fanout: FanoutFlusher;
  /** How many partitions the due index has. */
  readonly duePartitions: number;
  readonly logger: Logger | undefined;
  /** Waits for replicas before a write is acknowledged (RELAY_DURABILITY=replicated). */
  readonly replication: ReplicationGate;
  /**
   * Test hook: runs between a script that lowered an account's timers and the
   * due-index update that follows, to stand for a pod dying in between.
   */
  beforeDueIndexUpdate: (() => Promise<void>) | null = null;

  constructor(
    readonly redis: RedisClient,
    private readonly scripts: Scripts,
    readonly metrics: Metrics,
    options: StoreOptions = {},
  ) {
    redis.on('ready', () => (this.unreachable = false));
    this.logger = options.logger;
    this.duePartitions = options.duePartitions ?? 16;
    const windowMs = options.fanoutWindowMs ?? 50;
    this.fanout = new FanoutFlusher(
      (account, channel) =>
        this.run<AnnounceChannelReply, AnnounceChannelArgs>(
          announceChannelScript,
          { account, channel },
          { channel, fanout_window_ms: windowMs },
        ),
      windowMs,
      options.logger,
    );
    this.replication = new ReplicationGate(
      redis,
      options.durability ?? { mode: 'local', replicas: 1, timeoutMs: 1000 },
    );
  }

  /** The due index partition that holds the account. */
  duePartitionOf(account: string): number {
    return duePartitionOf(account, this.duePartitions);
  }

  /** Called when Redis is found unreachable (e.g. long-poll waits answer then). */
  onUnreachable(listener: () => void): void {
    this.unreachableListeners.push(listener);
  }

  /**
   * Calls a script; script error replies are left for the caller to map. Once
   * Redis is found unreachable, calls fail at once with the 503 (but one probe
   * every PROBE_MS) instead of each waiting out the command timeout: a request
   * making several calls is still answered within that timeout.
   */
  async call<T>(name: ScriptName, keys: string[], args: (string | number)[]): Promise<T> {
    this.admit();
    const end = this.metrics.scriptDuration.startTimer({ script: name });
    try {
      const result = (await runScript(this.scripts, name, keys, args)) as T;
      if (this.onBacklogChange && CHANGES_BACKLOG.has(name)) {
        const account = accountOfAccountKey(keys[0]);
        if (account !== null) this.onBacklogChange(account);
      }
      this.unreachable = false;
      return result;
    } catch (err) {
      if (!scriptFailure(err)) {
        this.metrics.scriptErrors.inc({ script: name });
        if (isUnavailable(err)) this.markUnreachable();
        rethrowStoreError(err);
      }
      this.unreachable = false;
      throw err;
    } finally {
      end();
    }
  }

  /**
   * Sends any other Redis command of the store (reads such as HKEYS, SSCAN, PING) through the
   * same door as the scripts: while Redis is unreachable it fails at once with the 503 (but
   * the probes); an outage is the 503 (RelayError 'unavailable'), never a raw client error;
   * and its success, like a script's, ends the outage. probe: send it even while Redis is
   * held unreachable (the readiness check).
   */
  async command<T>(send: (redis: RedisClient) => Promise<T>, probe = false): Promise<T> {
    if (!probe) this.admit();
    try {
      const result = await send(this.redis);
      this.unreachable = false;
      return result;
    } catch (err) {
      if (isUnavailable(err)) this.markUnreachable();
      return rethrowStoreError(err);
    }
  }

  /** Lets a command through: always while Redis answers, else one probe per PROBE_MS. */
  private admit(): void {
    if (!this.unreachable) return;
    const now = Date.now();
    if (now < this.nextProbe) throw unavailable();
    this.nextProbe = now + PROBE_MS;
  }

  /**
   * Calls a typed script (scripts/*.ts): KEYS by group, ARGV from one named object and
   * the variable tail; its error codes become the client's errors (SCRIPT_ERRORS), but
   * STALE_CONFIG, which withDeadLetter retries.
   */
  async run<T, A extends object>(
    spec: ScriptSpec<A>,
    on: ScriptKeys,
    args: A,
    tail?: readonly (string | number)[],
  ): Promise<T> {
    try {
      return await this.call<T>(spec.name, scriptKeys(spec, on), scriptArgv(spec, args, tail));
    } catch (err) {
      throw scriptError(err, { account: on.account, channel: on.channel, id: on.id });
    }
  }

  private markUnreachable(): void {
    this.nextProbe = Date.now() + PROBE_MS;
    if (this.unreachable) return;
    this.unreachable = true;
    for (const listener of this.unreachableListeners) listener();
  }

  /**
   * After a script lowered an account's earliest timer: make its partition of
   * the due index follow. The timers (written by that script) are the truth; a
   * failure here is repaired by the repair pass, so the client who was told the
   * change is stored is never given an error for it.
   */
  async lowerDue(account: string, dueMs: number | null): Promise<void> {
    if (dueMs === null || dueMs === undefined) return;
    try {
      if (this.beforeDueIndexUpdate) await this.beforeDueIndexUpdate();
      await this.run<LowerDueAccountReply, LowerDueAccountArgs>(
        lowerDueAccountScript,
        { partition: this.duePartitionOf(account) },
        { account, due_ms: dueMs },
      );
    } catch (err) {
      this.logger?.warn(
        { err: String(err), account },
        'due index not updated; the repair pass restores it',
      );
    }
  }

  /**
   * Runs a script that needs the keys of the channel's dead-letter channel, which the
   * typed scripts take by name: a script answers STALE_CONFIG <dlq> when the guess was
   * wrong; then it runs again with the right one. A rerun (attempt > 0) must not count its request against the rate limits again.
   */
  async withDeadLetter<T>(
    account: string,
    channel: string,
    run: (dlq: string, attempt: number) => Promise<T>,
  ): Promise<T> {
    const cacheKey = `${account}\u0000${channel}`;
    const cached = this.deadLetterTargets.get(cacheKey);
    let dlq = cached && Date.now() - cached.at < DLQ_CACHE_TTL_MS ? cached.dlq : '';
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await run(dlq, attempt);
        this.remember(cacheKey, dlq);
        return result;
      } catch (err) {
        const failure = scriptFailure(err);
        if (failure?.code !== 'STALE_CONFIG' || attempt >= 3) throw err;
        dlq = failure.detail;
        this.remember(cacheKey, dlq);
      }
    }
  }

  private remember(cacheKey: string, dlq: string): void {
    if (this.deadLetterTargets.size >= DLQ_CACHE_MAX) this.deadLetterTargets.clear();
    this.deadLetterTargets.set(cacheKey, { dlq, at: Date.now() });
  }
}
