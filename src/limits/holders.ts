/**
 * This pod's places under the accounts' concurrency caps (open WebSockets,
 * long-poll waits). Each place is a lease in Redis, refreshed here while held,
 * so a crashed pod's places lapse on their own within LEASE_MS.
 */
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { HolderKind } from '../store/keys';
import type { LimitStore } from '../store/limits';

export const HOLDER_LEASE_MS = 30_000;
const REFRESH_MS = HOLDER_LEASE_MS / 3;

export class HolderLeases {
  private readonly podId = crypto.randomBytes(6).toString('hex');
  private next = 0;
  /** `${kind} ${account}` -> holder ids held on this pod */
  private readonly held = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: LimitStore,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  /** Takes a place; returns its release function, or null when the cap is reached. */
  async acquire(account: string, kind: HolderKind, cap: number): Promise<(() => void) | null> {
    const id = `${this.podId}:${(this.next++).toString(36)}`;
    const { taken } = await this.store.acquireHolder(account, kind, id, cap, HOLDER_LEASE_MS);
    if (!taken) return null;
    const key = `${kind} ${account}`;
    let ids = this.held.get(key);
    if (!ids) this.held.set(key, (ids = new Set()));
    ids.add(id);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = this.held.get(key);
      current?.delete(id);
      if (current?.size === 0) this.held.delete(key);
      // A release lost to an outage lapses with its lease.
      this.store.releaseHolders(account, kind, [id]).catch(() => undefined);
    };
  }

  private refresh(): void {
    for (const [key, ids] of this.held) {
      const [kind, account] = key.split(' ') as [HolderKind, string];
      this.store
        .refreshHolders(account, kind, [...ids], HOLDER_LEASE_MS)
        .catch((err: unknown) =>
          this.logger.warn({ err: String(err), account, kind }, 'refreshing holder leases failed'),
        );
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
