/** Exponential backoff with jitter, shared by request retries and reconnects. */
import { option } from './wire.js';

export interface BackoffOptions {
  /** First delay, in ms. */
  baseMs: number;
  /** Largest delay, in ms. */
  maxMs: number;
  /** @deprecated use baseMs */
  base_ms?: number;
  /** @deprecated use maxMs */
  max_ms?: number;
}

/** Defaults completed by what the caller gave (camelCase, or the deprecated snake_case). */
export function backoffOptions(
  defaults: { baseMs: number; maxMs: number },
  given: Partial<BackoffOptions> | undefined,
): BackoffOptions {
  return {
    baseMs: option<number>(given, 'baseMs') ?? defaults.baseMs,
    maxMs: option<number>(given, 'maxMs') ?? defaults.maxMs,
  };
}

/**
 * The delay before retry number `attempt` (0 for the first retry): half of the
 * exponential step plus a random half, so that many clients cut off together
 * do not come back together.
 */
export function backoffDelay(attempt: number, { baseMs, maxMs }: BackoffOptions): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
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
