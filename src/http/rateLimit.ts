/**
 * Per-token rate limiting: a token bucket per token on each pod, refilled at
 * RELAY_RATE_LIMIT_PER_SECOND and holding up to RELAY_RATE_LIMIT_BURST
 * requests (default: one second's worth). 0 disables it. Checked right after
 * authentication, so one tenant's flood cannot starve the others. Being per
 * pod, a token's service-wide limit is the per-pod rate times the pod count.
 */
import { AppError } from '../errors';

interface Bucket {
  tokens: number;
  at: number;
}

const PRUNE_AT = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  readonly burst: number;

  constructor(
    readonly perSecond: number,
    burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.burst = burst > 0 ? burst : Math.max(1, perSecond);
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  /** Takes one request from the key's bucket; returns 0, or the seconds to wait before retrying. */
  take(key: string): number {
    if (!this.enabled) return 0;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= PRUNE_AT) this.prune(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    } else {
      const refill = ((now - bucket.at) / 1000) * this.perSecond;
      bucket.tokens = Math.min(this.burst, bucket.tokens + refill);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  /** Throws a 429 (with Retry-After) when the token is over its rate. */
  enforce(tokenId: string): void {
    const wait = this.take(tokenId);
    if (wait === 0) return;
    throw new AppError(
      'RATE_LIMITED',
      `rate limit exceeded: this token may make ${this.perSecond} requests per second (bursts of ${this.burst}); retry after ${wait} s`,
      { 'Retry-After': String(wait) },
    );
  }

  /** Forgets buckets that have refilled completely (they hold nothing a new bucket would not). */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond >= this.burst) {
        this.buckets.delete(key);
      }
    }
  }

  size(): number {
    return this.buckets.size;
  }
}
