/**
 * Long-poll waits: a pull with wait_ms waits for a new_message event on its
 * channel (from any pod, a delay or a lease ending) instead of polling Redis.
 * A waiter holds no Redis connection of its own: events arrive over the pod's
 * one subscriber connection.
 */
import type { EventHub } from './events';

export class ChannelWaiters {
  private readonly sleeping = new Set<() => void>();
  private released = false;

  constructor(private readonly hub: EventHub) {}

  /** On shutdown: every wait answers now with what it has, and new ones do not wait. */
  releaseAll(): void {
    this.released = true;
    for (const wake of [...this.sleeping]) wake();
  }

  /**
   * Subscribes to the account's events, then runs attempt() until it returns
   * a result with `done`, re-running it on each new_message for the channel
   * (and on a token revocation or account deletion, which attempt() re-checks),
   * until the deadline or the signal aborts. Returns the last result.
   */
  async waitFor<T>(
    account: string,
    channel: string,
    waitMs: number,
    signal: AbortSignal,
    attempt: () => Promise<{ done: boolean; value: T }>,
  ): Promise<T> {
    let wake: (() => void) | null = null;
    let signalled = false;
    const unsubscribe = await this.hub.subscribe(account, (event) => {
      // A revoked token or deleted account wakes the wait too: the next attempt re-checks the caller.
      if (event.kind !== 'new_message' || event.channel === channel) {
        signalled = true;
        wake?.();
      }
    });
    const deadline = Date.now() + waitMs;
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        signalled = false;
        const result = await attempt();
        const remaining = deadline - Date.now();
        if (result.done || remaining <= 0 || signal.aborted || this.released) return result.value;
        if (!signalled) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, remaining);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
            this.sleeping.add(wake);
          });
          if (wake) this.sleeping.delete(wake);
          wake = null;
        }
        if (signal.aborted || this.released) return result.value;
        if (Date.now() >= deadline) return (await attempt()).value;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }
}
