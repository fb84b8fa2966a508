/**
 * The one place that counts an account's limits, for every entrance (relay
 * API, account API, WebSocket upgrades, and adapters such as webhooks and SQS):
 * the plan's request rate (per account, across pods and tokens, with a token's
 * own lower rate), and its caps on open WebSockets and long-poll waits. The
 * operator API has its own limit. Every refusal is a 429 naming the limit.
 */
import type { Logger } from 'pino';
import type { AuthContext } from '../auth/authenticate';
import { AppError } from '../errors';
import type { LimitStore, RateHit, RateWindow } from '../store/limits';
import type { PlanLimits } from '../store/types';
import { HolderLeases } from './holders';

/** A rate with its burst as a fixed window: at most burst requests per burst/rate seconds. */
export function rateWindow(perSecond: number, burst: number): RateWindow {
  if (perSecond <= 0) return { limit: 0, windowMs: 1 };
  const limit = burst > 0 ? burst : Math.max(1, perSecond);
  return { limit, windowMs: Math.max(1, Math.round((1000 * limit) / perSecond)) };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function refused(hit: RateHit, message: (wait: number) => string): AppError {
  const wait = Math.max(1, Math.ceil(hit.waitMs / 1000));
  return new AppError('RATE_LIMITED', message(wait), { 'Retry-After': String(wait) });
}

/** Who is asking: the authenticated caller's account, plan limits and token. */
export type Caller = Pick<AuthContext, 'accountId' | 'tokenId' | 'limits' | 'tokenRatePerSecond'>;

export class AccountLimits {
  private readonly holders: HolderLeases;
  private operatorTokens: number;
  private operatorAt = Date.now();

  constructor(
    private readonly store: LimitStore,
    logger: Logger,
    private readonly operatorPerSecond: number,
  ) {
    this.holders = new HolderLeases(store, logger);
    this.operatorTokens = operatorPerSecond;
  }

  /** Counts one request of the caller; a 429 with Retry-After over the account's or token's rate. */
  async enforce(caller: Caller): Promise<void> {
    const { limits } = caller;
    const own = rateWindow(limits.rate_limit_per_second, limits.rate_limit_burst);
    const tokenRate = caller.tokenRatePerSecond ?? 0;
    const token = tokenRate > 0 ? rateWindow(tokenRate, 0) : null;
    if (own.limit === 0 && token === null) return;
    const hit = await this.store.hitRate(caller.accountId, caller.tokenId, own, token);
    if (hit.refusedBy === 'token') {
      throw refused(
        hit,
        (wait) =>
          `rate limit exceeded: this token may make ${plural(tokenRate, 'request')} per second (its rate_limit_per_second); retry after ${wait} s`,
      );
    }
    if (hit.refusedBy === 'account') {
      throw refused(
        hit,
        (wait) =>
          `rate limit exceeded: this account may make ${plural(limits.rate_limit_per_second, 'request')} per second in bursts of ${own.limit} (rate_limit_per_second ${limits.rate_limit_per_second}, rate_limit_burst ${own.limit}); retry after ${wait} s`,
      );
    }
  }

  /**
   * Counts one operator API request against RELAY_ADMIN_RATE_LIMIT_PER_SECOND.
   * Kept on the pod (a token bucket of one second's worth): the operator API
   * is not a tenant's, and its refusals must not depend on, or write to, Redis.
   */
  enforceOperator(): void {
    const rate = this.operatorPerSecond;
    if (rate <= 0) return;
    const now = Date.now();
    this.operatorTokens = Math.min(
      rate,
      this.operatorTokens + ((now - this.operatorAt) * rate) / 1000,
    );
    this.operatorAt = now;
    if (this.operatorTokens >= 1) {
      this.operatorTokens -= 1;
      return;
    }
    const waitMs = ((1 - this.operatorTokens) * 1000) / rate;
    throw refused(
      { waitMs, refusedBy: 'account' },
      (wait) =>
        `rate limit exceeded: the operator API takes ${plural(rate, 'request')} per second on each server (RELAY_ADMIN_RATE_LIMIT_PER_SECOND); retry after ${wait} s`,
    );
  }

  /** A place for a long-poll wait; returns its release. 429 over max_long_polls. */
  async holdLongPoll(accountId: string, limits: PlanLimits): Promise<() => void> {
    const release = await this.holders.acquire(accountId, 'lp', limits.max_long_polls);
    if (release) return release;
    throw new AppError(
      'RATE_LIMITED',
      `long-poll limit reached: this account may hold ${plural(limits.max_long_polls, 'long-poll wait')} at once (max_long_polls); retry after 1 s or pull without wait_ms`,
      { 'Retry-After': '1' },
    );
  }

  /** A place for an open WebSocket; returns its release. 429 over max_websocket_connections. */
  async holdWebSocket(accountId: string, limits: PlanLimits): Promise<() => void> {
    const release = await this.holders.acquire(accountId, 'ws', limits.max_websocket_connections);
    if (release) return release;
    throw new AppError(
      'RATE_LIMITED',
      `WebSocket limit reached: this account may hold ${plural(limits.max_websocket_connections, 'open WebSocket connection')} (max_websocket_connections); retry after 5 s`,
      { 'Retry-After': '5' },
    );
  }

  stop(): void {
    this.holders.stop();
  }
}
