/**
 * The service-wide backlog gauges. On Redis Cluster a script touches one slot,
 * so an account's scripts cannot update a service-wide counter. Instead each
 * pod remembers which accounts its scripts changed and, every interval, takes
 * an exact atomic snapshot of each (account_gauges.lua, in the account's slot)
 * and folds it into the totals (gauges_fold.lua, in the service slot). Folding
 * is versioned by Redis time, so it is idempotent and pods may race. Time-driven
 * changes (a delay or lease ending, retention) run through the sweeper's
 * scripts, so they mark the account too. A full pass over every account at
 * start and every FULL_PASS_MS repairs what a crashed pod did not fold.
 * A scrape then reads the totals in one script call: O(1).
 */
import type { Logger } from 'pino';
import type { StoreContext } from './context';
import { accountKeyList, systemKeys } from './keys';
import { accountGaugesScript, type AccountGaugesArgs } from './scripts/accountGauges';
import type { NoArgs } from './scripts/define';
import { gaugesFoldScript, gaugesReadScript, type GaugesFoldArgs } from './scripts/gauges';

const FULL_PASS_MS = 10 * 60_000;
const SCAN_COUNT = 500;

export interface BacklogTotals {
  queued: number;
  delayed: number;
  in_flight: number;
  dead_letter: number;
  storage_bytes: number;
  channels: number;
  accounts: number;
  /** seconds since the oldest message held anywhere was sent; 0 when none */
  oldest_message_age_seconds: number;
  /** seconds until retention next deletes a message anywhere; Infinity when none */
  next_expiry_seconds: number;
  /** message groups (docs/api/groups.md): ready (not blocked) and blocked */
  groups_ready: number;
  groups_blocked: number;
}

type Snapshot = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number,
  number,
];

export class BacklogGauges {
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastFullPass = 0;
  /** a fold failed and has not succeeded since (logged once, not every interval) */
  private failing = false;

  constructor(
    private readonly ctx: StoreContext,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    ctx.onBacklogChange = (account) => this.changed.add(account);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lastFullPass = 0;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Folds every account changed since the last fold (and, when due, every account). */
  async fold(): Promise<void> {
    if (Date.now() - this.lastFullPass >= FULL_PASS_MS) {
      this.lastFullPass = Date.now();
      await this.foldAll();
    }
    const accounts = [...this.changed];
    this.changed.clear();
    for (const account of accounts) {
      try {
        await this.foldAccount(account);
      } catch (err) {
        this.changed.add(account);
        throw err;
      }
    }
  }

  /** The totals as last folded, with the oldest age measured on Redis's clock now. */
  async read(): Promise<BacklogTotals> {
    const r = await this.ctx.run<(number | null)[], NoArgs>(gaugesReadScript, {}, {});
    const oldest = r[7];
    const now = r[8] as number;
    const soonest = r[9];
    return {
      queued: r[0] as number,
      delayed: r[1] as number,
      in_flight: r[2] as number,
      dead_letter: r[3] as number,
      storage_bytes: r[4] as number,
      channels: r[5] as number,
      accounts: r[6] as number,
      oldest_message_age_seconds: oldest === null ? 0 : Math.max(0, now - oldest) / 1000,
      next_expiry_seconds:
        soonest === null || soonest === undefined ? Infinity : Math.max(0, soonest - now) / 1000,
      groups_ready: (r[10] as number | undefined) ?? 0,
      groups_blocked: (r[11] as number | undefined) ?? 0,
    };
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.fold()
        .then(() => {
          if (this.failing) this.logger.info('gauge folds work again');
          this.failing = false;
        })
        .catch((err) => {
          if (!this.failing) this.logger.warn({ err: String(err) }, 'gauge fold failed; retrying');
          this.failing = true;
        })
        .then(() => this.schedule(this.intervalMs));
    }, delay);
    this.timer.unref?.();
  }

  private async foldAll(): Promise<void> {
    let cursor = '0';
    do {
      const at = cursor;
      const [next, accounts] = await this.ctx.command((redis) =>
        redis.sscan(systemKeys.accounts, at, 'COUNT', SCAN_COUNT),
      );
      cursor = next;
      for (const account of accounts) await this.foldAccount(account);
    } while (cursor !== '0' && !this.stopped);
  }

  /** Snapshots one account (retrying while its channels change under us) and folds it. */
  async foldAccount(account: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const channels = await this.ctx.command((redis) => redis.hkeys(accountKeyList(account)[1]));
      const snapshot = await this.ctx.run<Snapshot | 'stale', AccountGaugesArgs>(
        accountGaugesScript,
        { account, channels },
        { n: channels.length },
        channels,
      );
      if (snapshot === 'stale') continue;
      const [version, ...values] = snapshot;
      const [oldest, nextExpiry] = [values[6], values[7]];
      const [queued, delayed, inFlight, deadLetter, storage, channelCount] = values
        .slice(0, 6)
        .map(Number);
      const [groupsReady, groupsBlocked] = [values[8] ?? 0, values[9] ?? 0];
      await this.ctx.run<number, GaugesFoldArgs>(
        gaugesFoldScript,
        {},
        {
          account,
          version_us: version,
          queued,
          delayed,
          in_flight: inFlight,
          dead_letter: deadLetter,
          storage_bytes: storage,
          channels: channelCount,
          oldest_ms: oldest ?? '',
          next_expiry_ms: nextExpiry ?? '',
          groups_ready: Number(groupsReady),
          groups_blocked: Number(groupsBlocked),
        },
      );
      return;
    }
    // Its channels kept changing: each change marked it again, so a later fold takes it.
    this.changed.add(account);
  }
}
