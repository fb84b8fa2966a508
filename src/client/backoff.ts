/** Exponential backoff with jitter, shared by request retries and reconnects. */

export interface BackoffOptions {
  /** First delay, in ms. */
  base_ms: number;
  /** Largest delay, in ms. */
  max_ms: number;
}

/**
 * The delay before retry number `attempt` (0 for the first retry): half of the
 * exponential step plus a random half, so that many clients cut off together
 * do not come back together.
 */
export function backoffDelay(attempt: number, { base_ms, max_ms }: BackoffOptions): number {
  const step = Math.min(max_ms, base_ms * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + Math.random() * (step / 2));
}

/** Resolves after `ms`, or at once when the signal aborts. Never leaves a timer behind. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
