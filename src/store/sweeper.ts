/**
 * The due-time sweeper. Every pod runs one; they share the work through the
 * global due index (account -> earliest due time). Each tick claims the
 * accounts that are due (a claim moves the entry into the future, so no two
 * pods sweep one account at once), sweeps their due channels, and puts each
 * account back at its next due time. Work per tick follows what is due, not
 * how many accounts or messages exist.
 */
import type { Logger } from 'pino';
import type { PlanResolver } from '../plans';
import type { StoreContext } from './context';
import { accountKeyList, systemKeys } from './keys';

const CLAIM_MS = 10_000;
const ACCOUNTS_PER_TICK = 50;
const CHANNELS_PER_ACCOUNT = 100;
const ITEMS_PER_CHANNEL = 1000;

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly ctx: StoreContext,
    private readonly plans: PlanResolver,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
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

  /** One pass over the due accounts. Returns true when more work is waiting. */
  async tick(): Promise<boolean> {
    const claimed = await this.ctx.call<string[]>(
      'claim_due_accounts',
      [systemKeys.due],
      [CLAIM_MS, ACCOUNTS_PER_TICK],
    );
    for (let i = 0; i < claimed.length; i += 2) {
      await this.sweepAccount(claimed[i], claimed[i + 1]);
    }
    return claimed.length / 2 >= ACCOUNTS_PER_TICK;
  }

  private async sweepAccount(account: string, claim: string): Promise<void> {
    const accountRecord = await this.ctx.call<[string] | null>(
      'account_get',
      accountKeyList(account),
      [],
    );
    const limits = this.plans.limits(accountRecord ? accountRecord[0] : null);
    const due = await this.ctx.call<string[]>('due_channels', accountKeyList(account), [
      CHANNELS_PER_ACCOUNT,
    ]);
    let nextDue: number | null = null;
    for (let i = 0; i < due.length; i += 2) {
      const channel = due[i];
      const [accountNext, requeued, deadLettered, discarded, expired, pendingMs] =
        await this.ctx.withDeadLetterKeys(account, channel, (keys, dlq) =>
          this.ctx.call<[number | null, number, number, number, number, number | null]>(
            'sweep_channel',
            keys,
            [channel, dlq, limits.max_channels, ITEMS_PER_CHANNEL, this.ctx.fanout.windowMs],
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
    await this.ctx.call('release_due_account', [systemKeys.due], [account, claim, nextDue ?? '']);
    // A sender may have added a timer after the sweep read the account; look once more.
    const earliest = await this.earliestTimer(account);
    if (earliest !== null) await this.ctx.lowerDue(account, earliest);
  }

  private async earliestTimer(account: string): Promise<number | null> {
    const first = await this.ctx.redis.zrange(accountKeyList(account)[2], 0, 0, 'WITHSCORES');
    return first.length === 2 ? Number(first[1]) : null;
  }
}
