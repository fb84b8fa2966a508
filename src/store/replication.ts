/**
 * RELAY_DURABILITY=replicated: a write the client is told succeeded has
 * reached `replicas` replicas first (WAIT; WAITAOF, which also waits for the
 * replicas' AOF fsync, where the Redis version has it). Concurrent requests
 * share one WAIT per connection: one is in flight at a time, and requests
 * whose writes finish while it is in flight join the next one (a WAIT covers
 * every write sent on its connection before it). When the replicas do not
 * confirm in time, the client gets a 503 saying the write is stored on the
 * primary but not confirmed, so it retries (with a dedup id for sends).
 */
import { RelayError } from '../errors';
import { accountKeys } from './keys';
import { isCluster, type RedisClient } from './redis';
import { keySlot } from './slots';

export interface DurabilityOptions {
  mode: 'local' | 'replicated';
  replicas: number;
  timeoutMs: number;
}

interface NodeWaits {
  running: Promise<number> | null;
  queued: Promise<number> | null;
}

export class ReplicationGate {
  private readonly waits = new Map<RedisClient, NodeWaits>();
  private useWaitAof: boolean | null = null;
  /** WAIT commands sent, for the benchmark. */
  waitsSent = 0;

  constructor(
    private readonly redis: RedisClient,
    readonly options: DurabilityOptions,
  ) {}

  get enabled(): boolean {
    return this.options.mode === 'replicated';
  }

  /** Resolves once the account's latest writes reached the replicas; throws the 503 otherwise. */
  async confirm(account: string): Promise<void> {
    if (!this.enabled) return;
    const node = this.nodeOf(account);
    let acked: number;
    try {
      acked = await this.join(node);
    } catch {
      acked = -1;
    }
    if (acked < this.options.replicas) {
      throw new RelayError(
        'unavailable',
        `the write is stored on the primary but not confirmed by ${this.options.replicas} ` +
          `replica(s) within ${this.options.timeoutMs} ms; retry it (with the same dedup_id for sends)`,
        { retryAfterSeconds: 1 },
      );
    }
  }

  private nodeOf(account: string): RedisClient {
    const redis = this.redis;
    if (!isCluster(redis)) return redis;
    const owner = redis.slots[keySlot(accountKeys(account).account)]?.[0];
    const node = redis.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
    return node ?? redis.nodes('master')[0];
  }

  private join(node: RedisClient): Promise<number> {
    let state = this.waits.get(node);
    if (!state) {
      state = { running: null, queued: null };
      this.waits.set(node, state);
    }
    const s = state;
    const start = (): Promise<number> => {
      const wait = this.wait(node).finally(() => {
        if (s.running === wait) s.running = null;
      });
      s.running = wait;
      return wait;
    };
    if (!s.running) return start();
    if (!s.queued) {
      const running = s.running;
      s.queued = running
        .catch(() => 0)
        .then(() => {
          s.queued = null;
          return start();
        });
    }
    return s.queued;
  }

  private async wait(node: RedisClient): Promise<number> {
    this.waitsSent++;
    const { replicas, timeoutMs } = this.options;
    if (this.useWaitAof === null) {
      const info = await node.info('server');
      const [major, minor] = (/redis_version:(\d+)\.(\d+)/.exec(info) ?? ['', '0', '0'])
        .slice(1)
        .map(Number);
      this.useWaitAof = major > 7 || (major === 7 && minor >= 2);
    }
    if (this.useWaitAof) {
      const reply = (await node.call('WAITAOF', 0, replicas, timeoutMs)) as [number, number];
      return Number(reply[1]);
    }
    return Number(await node.call('WAIT', replicas, timeoutMs));
  }
}
