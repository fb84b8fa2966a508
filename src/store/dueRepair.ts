/**
 * The due index's repair pass. Each account's timers (written by the same
 * script as every change that sets them) are the truth; the partitioned index
 * is a copy that a lost update or a lost key can leave behind. This pass walks
 * every account's timers key with SCAN, a bounded step per tick, and lowers
 * the index entry to the account's earliest timer (idempotent). It reads no
 * service-wide key, so it heals even after all of them are gone. Master i is
 * walked by the owner of due partition i (mod the partition count), so the
 * work is spread and does not grow with the number of pods; a whole pass takes
 * about passMs.
 */
import type { Logger } from 'pino';
import type { StoreContext } from './context';
import { accountOfTimersKey, TIMERS_KEY_PATTERN } from './keys';
import { isCluster, type RedisClient } from './redis';
import type { Sweeper } from './sweeper';
import {
  lowerDueAccountScript,
  type LowerDueAccountArgs,
  type LowerDueAccountReply,
} from './scripts/dueIndex';

const TICK_MS = 1000;
const MIN_STEP = 100;

interface Walk {
  cursor: string;
  step: number;
}

export class DueRepair {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly walks = new Map<string, Walk>();
  /** Index entries this pod restored or lowered, for tests and the benchmark. */
  repaired = 0;

  constructor(
    private readonly ctx: StoreContext,
    private readonly sweeper: Sweeper,
    private readonly logger: Logger,
    private readonly passMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => this.logger.warn({ err: String(err) }, 'due index repair step failed'))
        .finally(() => {
          this.running = null;
        });
    }, TICK_MS);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private masters(): { name: string; node: RedisClient }[] {
    const redis = this.ctx.redis;
    const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
    return nodes
      .map((node) => ({ name: `${node.options.host}:${node.options.port}`, node }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** One SCAN step on each master this pod is responsible for. */
  async tick(): Promise<void> {
    const masters = this.masters();
    for (let i = 0; i < masters.length; i++) {
      if (!this.sweeper.owns(i % this.ctx.duePartitions)) continue;
      await this.step(masters[i].name, masters[i].node);
    }
  }

  private async step(name: string, node: RedisClient): Promise<void> {
    let walk = this.walks.get(name);
    if (!walk || walk.cursor === '0') {
      // A new pass: size the steps so that it ends in about passMs.
      const keys = Number(await this.ctx.command(() => node.dbsize()));
      const ticks = Math.max(1, Math.floor(this.passMs / TICK_MS) - 1);
      walk = { cursor: '0', step: Math.max(MIN_STEP, Math.ceil(keys / ticks)) };
      this.walks.set(name, walk);
    }
    const { step } = walk;
    const [cursor, keys] = await this.ctx.command(() =>
      node.scan(walk.cursor, 'MATCH', TIMERS_KEY_PATTERN, 'COUNT', step, 'TYPE', 'zset'),
    );
    walk.cursor = cursor;
    for (const key of keys) {
      const account = accountOfTimersKey(key);
      if (account === null) continue;
      const first = await this.ctx.command((redis) => redis.zrange(key, 0, 0, 'WITHSCORES'));
      if (first.length !== 2) continue;
      const earliest = Number(first[1]);
      const partition = this.ctx.duePartitionOf(account);
      if (await this.restore(account, partition, earliest)) this.repaired++;
    }
  }

  /** Lowers the account's index entry to its earliest timer; true if it was missing or later. */
  private async restore(account: string, partition: number, earliest: number): Promise<boolean> {
    const changed = await this.ctx.run<LowerDueAccountReply, LowerDueAccountArgs>(
      lowerDueAccountScript,
      { partition },
      { account, due_ms: earliest },
    );
    return Number(changed) === 1;
  }
}
