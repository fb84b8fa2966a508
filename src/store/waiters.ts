/**
 * Long-poll waits: a pull with wait_ms waits for a new_message event on its
 * channel (from any pod, a delay or a lease ending) instead of polling Redis.
 * A waiter holds no Redis connection of its own: events arrive over the pod's
 * one subscriber connection.
 */
import type { EventHub } from './events';

export class ChannelWaiters {
  constructor(private readonly hub: EventHub) {}

  /**
   * Subscribes to the account's events, then runs attempt() until it returns
   * a result with `done`, re-running it on each new_message for the channel,
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
      if (
        (event.kind === 'new_message' && event.channel === channel) ||
        event.kind === 'resubscribed'
      ) {
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
        if (result.done || remaining <= 0 || signal.aborted) return result.value;
        if (!signalled) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, remaining);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
        if (signal.aborted) return result.value;
        if (Date.now() >= deadline) return (await attempt()).value;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }
}
