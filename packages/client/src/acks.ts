/**
 * The consumer's outgoing acks: collected per channel for a few milliseconds
 * and sent in one call (at most 100 leases per call). Acks that fail for want
 * of the relay (no response, 503, 429) are kept and sent again with backoff
 * until they go through: an ack is safe to repeat, and a late one still
 * deletes its message as long as nobody has pulled it since.
 */
import type { RelayApi } from './api.js';
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js';
import { RelayError } from './errors.js';
import type { Retry } from './types.js';

interface PendingAcks {
  leaseIds: string[];
  retries: Retry[];
}

export interface AckBatcherOptions {
  delayMs: number;
  backoff: BackoffOptions;
  /** Called with every failed ack call. */
  report: (err: unknown, channel: string) => void;
  /** Keeps a send in the consumer's set of work under way. */
  track: <T>(promise: Promise<T>) => Promise<T>;
}

const MAX_PER_CALL = 100;

export class AckBatcher {
  private readonly pending = new Map<string, PendingAcks>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private draining = false;
  /** Aborted when the consumer stops waiting for the last acks. */
  private readonly giveUp = new AbortController();

  constructor(
    private readonly api: RelayApi,
    private readonly options: AckBatcherOptions,
  ) {}

  /** Queues the ack of a lease, or a retry (a lease handed back with a delay). */
  add(channel: string, leaseId?: string, retry?: Retry): void {
    let acks = this.pending.get(channel);
    if (!acks) {
      acks = { leaseIds: [], retries: [] };
      this.pending.set(channel, acks);
    }
    if (leaseId !== undefined) acks.leaseIds.push(leaseId);
    if (retry !== undefined) acks.retries.push(retry);
    const full = acks.leaseIds.length + acks.retries.length >= MAX_PER_CALL;
    this.schedule(full ? 0 : this.options.delayMs);
  }

  /**
   * Sends what is pending until all of it went through or `timeoutMs` passed
   * (then the rest is dropped: those messages come back after their lease).
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const deadline = setTimeout(() => this.giveUp.abort(), timeoutMs);
    try {
      let failures = 0;
      while (this.pending.size > 0 && !this.giveUp.signal.aborted) {
        this.clearTimer();
        if (await this.sendAll()) continue;
        await sleep(backoffDelay(failures++, this.options.backoff), this.giveUp.signal);
      }
    } finally {
      clearTimeout(deadline);
      this.clearTimer();
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.options.track(this.sendAll());
    }, delayMs);
  }

  /** Sends every pending ack once; failures the relay may cure go back to pending. */
  private async sendAll(): Promise<boolean> {
    const batches = [...this.pending.entries()];
    this.pending.clear();
    let allSent = true;
    await Promise.all(
      batches.map(async ([channel, acks]) => {
        const count = Math.max(acks.leaseIds.length, acks.retries.length);
        for (let i = 0; i < count; i += MAX_PER_CALL) {
          const leaseIds = acks.leaseIds.slice(i, i + MAX_PER_CALL);
          const retries = acks.retries.slice(i, i + MAX_PER_CALL);
          try {
            const options = retries.length > 0 ? { retries } : {};
            await this.api.ack(channel, leaseIds, options, this.giveUp.signal);
            this.failures = 0;
          } catch (err) {
            this.options.report(err, channel);
            if (err instanceof RelayError && !err.retryable) continue;
            allSent = false;
            const back = this.pending.get(channel) ?? { leaseIds: [], retries: [] };
            back.leaseIds.push(...leaseIds);
            back.retries.push(...retries);
            this.pending.set(channel, back);
          }
        }
      }),
    );
    if (!allSent && !this.draining) {
      this.schedule(backoffDelay(this.failures++, this.options.backoff));
    }
    return allSent;
  }
}
