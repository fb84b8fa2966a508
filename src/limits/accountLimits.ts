/**
 * An account's caps on open WebSockets and long-poll waits (across pods), and the operator
 * API's own limit. The plan's request rate is counted where the caller is checked, inside
 * the script that serves the request (lua/lib/caller.lua). Every refusal is a 429 naming
 * the limit.
 */
import type { Logger } from 'pino';
import { RelayError, plural, rateLimited } from '../errors';
import type { LimitStore } from '../store/limits';
import type { PlanLimits } from '../store/types';
import { HolderLeases } from './holders';

const LONG_POLL_RETRY_MS = 1000;
const FULL_ACCOUNTS_MAX = 10_000;

function longPollLimit(cap: number): RelayError {
  return new RelayError(
    'concurrency_limit',
    `long-poll limit reached: this account may hold ${plural(cap, 'long-poll wait')} at once (max_long_polls); retry after 1 s or pull without wait_ms`,
    { retryAfterSeconds: LONG_POLL_RETRY_MS / 1000 },
  );
}

export class AccountLimits {
  private readonly holders: HolderLeases;
  private operatorTokens: number;
  private operatorAt = Date.now();
  /**
   * Accounts this pod found at their long-poll cap, until when, and the cap: for that second
   * a long poll is refused on the pod without a Redis call (a refusal flood stays cheap). A
   * place freed on this pod forgets it at once; one freed on another pod is seen within 1 s,
   * the Retry-After the refusal gives.
   */
  private readonly longPollsFull = new Map<string, { untilMs: number; cap: number }>();

  constructor(
    private readonly store: LimitStore,
    logger: Logger,
    private readonly operatorPerSecond: number,
  ) {
    this.holders = new HolderLeases(store, logger);
    this.operatorTokens = operatorPerSecond;
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
    throw rateLimited(
      waitMs,
      (wait) =>
        `rate limit exceeded: the operator API takes ${plural(rate, 'request')} per second on each server (RELAY_ADMIN_RATE_LIMIT_PER_SECOND); retry after ${wait} s`,
    );
  }

  /** Refuses a long poll at once when this pod found the account at its cap within 1 s. */
  refuseLongPollIfFull(accountId: string): void {
    const full = this.longPollsFull.get(accountId);
    if (full === undefined) return;
    if (full.untilMs > Date.now()) throw longPollLimit(full.cap);
    this.longPollsFull.delete(accountId);
  }

  /** A place for a long-poll wait; returns its release. 429 over max_long_polls. */
  async holdLongPoll(accountId: string, limits: PlanLimits): Promise<() => void> {
    this.refuseLongPollIfFull(accountId);
    const cap = limits.max_long_polls;
    const release = await this.holders.acquire(accountId, 'lp', cap);
    if (release) {
      return () => {
        this.longPollsFull.delete(accountId);
        release();
      };
    }
    if (this.longPollsFull.size >= FULL_ACCOUNTS_MAX) this.longPollsFull.clear();
    this.longPollsFull.set(accountId, { untilMs: Date.now() + LONG_POLL_RETRY_MS, cap });
    throw longPollLimit(cap);
  }

  /** A place for an open WebSocket; returns its release. 429 over max_websocket_connections. */
  async holdWebSocket(accountId: string, limits: PlanLimits): Promise<() => void> {
    const release = await this.holders.acquire(accountId, 'ws', limits.max_websocket_connections);
    if (release) return release;
    throw new RelayError(
      'concurrency_limit',
      `WebSocket limit reached: this account may hold ${plural(limits.max_websocket_connections, 'open WebSocket connection')} (max_websocket_connections); retry after 5 s`,
      { retryAfterSeconds: 5 },
    );
  }

  stop(): void {
    this.holders.stop();
  }
}
