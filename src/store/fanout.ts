/**
 * Coalesced new_message fan-out, the pod's half. Scripts publish at once when
 * a channel published nothing in the last window or its consumers had drained
 * it (docs/design.md, Notifications); otherwise they mark the channel pending
 * and say when its window ends. This pod then runs
 * announce_channel at that time (one timer per channel, however many sends
 * asked), so a subscriber hears of every send within the window. If this pod
 * dies first, the sweeper publishes the pending announcement shortly after.
 */
import type { Logger } from 'pino';

/**
 * Runs announce_channel for the channel: null when nothing is left pending, else the ms until
 * the next window ends (the store's context passes its script call; no import of it here).
 */
export type AnnounceChannel = (account: string, channel: string) => Promise<number | null>;

export class FanoutFlusher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly announce: AnnounceChannel,
    readonly windowMs: number,
    private readonly logger?: Logger,
  ) {}

  /** A script left the channel's announcement pending, due in inMs. */
  schedule(account: string, channel: string, inMs: number | null | false | undefined): void {
    if (inMs === null || inMs === false || inMs === undefined || this.stopped) return;
    const key = `${account}\u0000${channel}`;
    if (this.timers.has(key)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        this.announce(account, channel)
          .then((again) => this.schedule(account, channel, again))
          // the sweeper publishes what this pod could not
          .catch((err) =>
            this.logger?.warn({ err: String(err), account }, 'coalesced announcement failed'),
          );
      },
      Math.max(0, inMs),
    );
    timer.unref?.();
    this.timers.set(key, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
