/**
 * The due-time sweeper. Every pod runs one; they share the work through the
 * partitioned due index (account -> earliest due time, split over partitions
 * on different slots). Each partition has one owner pod at a time (a short
 * lease renewed on every claim), and a pod takes no more than its fair share
 * of partitions, so sweeps per account do not grow with the number of pods.
 * Each tick the pod claims the due accounts of the partitions it owns, sweeps
 * their due channels, and puts each account back at its next due time. The
 * other partitions it only checks once per lease, so that it notices a free
 * one and the others learn that it exists.
 */
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { StoreContext } from './context';
import { accountKeyList } from './keys';
import {
  claimDueAccountsScript,
  releaseDueAccountScript,
  type ClaimDueAccountsArgs,
  type ClaimDueAccountsReply,
  type ReleaseDueAccountArgs,
} from './scripts/dueIndex';
import {
  dueChannelsScript,
  sweepChannelScript,
  type DueChannelsArgs,
  type DueChannelsReply,
  type SweepChannelArgs,
  type SweepChannelReply,
} from './scripts/sweep';

const CLAIM_MS = 10_000;
const ACCOUNTS_PER_TICK = 50;
const CHANNELS_PER_ACCOUNT = 100;
const ITEMS_PER_CHANNEL = 1000;
const MIN_LEASE_MS = 1000;

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  readonly podId = crypto.randomBytes(8).toString('hex');
  /** Partitions this pod owns now. */
  private readonly owned = new Set<number>();
  /** Local time until which another pod owns a partition (or this pod left it). */
  private readonly heldElsewhereUntil: number[];
  /** Partitions found without an owner on their last look. */
  private readonly seenFree = new Set<number>();
  /** The latest count of pods each partition has seen. */
  private readonly podsSeen: number[];
  private readonly leaseMs: number;
  /** Sweeps run by this pod, for the scale benchmark. */
  sweeps = 0;

  constructor(
    private readonly ctx: StoreContext,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    this.leaseMs = Math.max(MIN_LEASE_MS, intervalMs * 10);
    this.heldElsewhereUntil = new Array<number>(ctx.duePartitions).fill(0);
    this.podsSeen = new Array<number>(ctx.duePartitions).fill(1);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops; handOver false leaves the partitions to expire, as a crashed pod does (tests). */
  async stop(handOver = true): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    if (!handOver) return;
    // Hand the partitions over at once rather than when the leases run out.
    for (const partition of [...this.owned]) {
      await this.claim(partition, 'leave').catch(() => undefined);
    }
  }

  /** Whether this pod sweeps the partition now (the repair pass follows this). */
  owns(partition: number): boolean {
    return this.owned.has(partition);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err) => this.logger.warn({ err: String(err) }, 'sweep failed; retrying'))
        .then((busy) => this.schedule(busy ? 0 : this.intervalMs));
    }, delay);
    this.timer.unref?.();
  }

  private fairShare(): number {
    return Math.ceil(this.ctx.duePartitions / Math.max(1, ...this.podsSeen));
  }

  /** One pass over the partitions. Returns true when more work is waiting. */
  async tick(): Promise<boolean> {
    let busy = false;
    const partitions = this.ctx.duePartitions;
    const offset = Math.floor(Math.random() * partitions);
    for (let i = 0; i < partitions && !this.stopped; i++) {
      const partition = (offset + i) % partitions;
      if (!this.owned.has(partition) && Date.now() < this.heldElsewhereUntil[partition]) continue;
      const owns = this.owned.has(partition);
      const fair = this.fairShare();
      // A partition seen without an owner is taken even beyond the fair share
      // (someone must sweep it now; the excess is handed over on a later tick).
      const take = owns
        ? this.owned.size <= fair
        : this.owned.size < fair || this.seenFree.has(partition);
      const claimed = await this.claim(partition, take ? 'take' : 'leave');
      for (let j = 0; j < claimed.length; j += 2) {
        await this.sweepAccount(partition, claimed[j], claimed[j + 1]);
      }
      if (claimed.length / 2 >= ACCOUNTS_PER_TICK) busy = true;
    }
    return busy;
  }

  private async claim(partition: number, mode: 'take' | 'leave'): Promise<string[]> {
    const [heldMs, pods, claimed] = await this.ctx.run<ClaimDueAccountsReply, ClaimDueAccountsArgs>(
      claimDueAccountsScript,
      { partition },
      {
        claim_ms: CLAIM_MS,
        limit: ACCOUNTS_PER_TICK,
        pod_id: this.podId,
        lease_ms: this.leaseMs,
        mode,
      },
    );
    this.podsSeen[partition] = Number(pods);
    const wasOwned = this.owned.has(partition);
    this.seenFree.delete(partition);
    if (Number(heldMs) === 0) {
      this.owned.add(partition);
    } else if (Number(heldMs) < 0 && !wasOwned) {
      // nobody owns it (its owner died or left): take it on the next tick
      this.seenFree.add(partition);
      this.heldElsewhereUntil[partition] = 0;
    } else {
      this.owned.delete(partition);
      // Look again when the owner's lease ends, or after a lease when this pod left it.
      this.heldElsewhereUntil[partition] =
        Date.now() + (Number(heldMs) > 0 ? Number(heldMs) : this.leaseMs);
    }
    return claimed;
  }

  private async sweepAccount(partition: number, account: string, claim: string): Promise<void> {
    this.sweeps++;
    const due = await this.ctx.run<DueChannelsReply, DueChannelsArgs>(
      dueChannelsScript,
      { account },
      { limit: CHANNELS_PER_ACCOUNT },
    );
    let nextDue: number | null = null;
    for (let i = 0; i < due.length; i += 2) {
      const channel = due[i];
      const [accountNext, requeued, deadLettered, discarded, expired, pendingMs] =
        await this.ctx.withDeadLetter(account, channel, (dlq) =>
          this.ctx.run<SweepChannelReply, SweepChannelArgs>(
            sweepChannelScript,
            { account, channel, target: dlq === '' ? channel : dlq },
            {
              channel,
              dead_letter_channel: dlq,
              limit: ITEMS_PER_CHANNEL,
              fanout_window_ms: this.ctx.fanout.windowMs,
            },
          ),
        );
      nextDue = accountNext;
      this.ctx.fanout.schedule(account, channel, pendingMs);
      this.ctx.metrics.count('requeued', requeued);
      this.ctx.metrics.count('dead_lettered', deadLettered);
      this.ctx.metrics.count('discarded', discarded);
      this.ctx.metrics.count('expired', expired);
    }
    if (due.length === 0) nextDue = await this.earliestTimer(account);
    await this.ctx.run<unknown, ReleaseDueAccountArgs>(
      releaseDueAccountScript,
      { partition },
      { account, claim_score: claim, next_due_ms: nextDue ?? '' },
    );
    // A sender may have added a timer after the sweep read the account; look once more.
    const earliest = await this.earliestTimer(account);
    if (earliest !== null) await this.ctx.lowerDue(account, earliest);
  }

  private async earliestTimer(account: string): Promise<number | null> {
    const first = await this.ctx.command((redis) =>
      redis.zrange(accountKeyList(account)[2], 0, 0, 'WITHSCORES'),
    );
    return first.length === 2 ? Number(first[1]) : null;
  }
}
