/**
 * Account events over Redis sharded pub/sub (SSUBSCRIBE), fanned out to this
 * pod's local listeners. One Redis subscription per account with local
 * listeners, dropped when the last one leaves. Scripts publish:
 *   'n <channel> <count>'  count messages became available on a channel (or, for
 *                  a coalesced announcement, are still available: maybe 0); long-poll
 *                  waiters wake as many. 'n <channel>' (older scripts): some did.
 *   'r <token id>' a token was revoked
 *   'a'            the account was deleted
 * Events published while this pod's subscriber connection is down are lost, so
 * after it reconnects every listener is told `resubscribed`: treat every
 * channel as having new messages (and re-check tokens). The resubscription is
 * batched (one SSUBSCRIBE per slot and batch), and the `resubscribed` events
 * are spread over a short time so that clients do not all pull at once.
 */
import type { Logger } from 'pino';
import { accountKeys, accountOfEventsKey } from './keys';
import { isCluster, type RedisClient } from './redis';
import { keySlot } from './slots';
import { rethrowStoreError } from './storeErrors';

const RESUBSCRIBE_BATCH = 200;
/** How far the catch-up events after a resubscription are spread, at most. */
export const RESUBSCRIBE_SPREAD_MS = 1000;

export type AccountEvent =
  /** count: how many messages became available (absent from older publishers) */
  | { kind: 'new_message'; channel: string; count?: number }
  | { kind: 'token_revoked'; tokenId: string }
  | { kind: 'account_deleted' }
  /**
   * the subscription is back after a lost connection; events may have been missed.
   * by: the time (ms since the epoch) by which the catch-up is to be spread out: a
   * listener that tells many clients spreads them over what is left of it.
   */
  | { kind: 'resubscribed'; by: number };

export type AccountListener = (event: AccountEvent) => void;

export function parseEvent(payload: string): AccountEvent | null {
  if (payload.startsWith('n ')) {
    const [channel, count] = payload.slice(2).split(' ');
    const n = Number(count);
    return count !== undefined && count !== '' && Number.isInteger(n) && n >= 0
      ? { kind: 'new_message', channel, count: n }
      : { kind: 'new_message', channel };
  }
  if (payload.startsWith('r ')) return { kind: 'token_revoked', tokenId: payload.slice(2) };
  if (payload === 'a') return { kind: 'account_deleted' };
  return null;
}

export class EventHub {
  private readonly listeners = new Map<string, Set<AccountListener>>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
  ) {
    subscriber.on('smessage', (key: string, payload: string) => this.dispatch(key, payload));
    subscriber.on('ready', () => this.resubscribe());
  }

  private dispatch(key: string, payload: string): void {
    const account = accountOfEventsKey(key);
    const event = parseEvent(payload);
    if (account === null || event === null) return;
    this.deliver(account, event);
  }

  /**
   * After a (re)connection: subscribe again (the client would too, but one
   * account at a time and without telling us when), then tell every listener,
   * each at a random moment within RESUBSCRIBE_SPREAD_MS, that it may have
   * missed events.
   */
  private resubscribe(): void {
    for (const batch of this.batches([...this.listeners.keys()])) {
      const keys = batch.map((account) => accountKeys(account).events);
      Promise.resolve(this.subscriber.ssubscribe(...keys)).then(
        () => {
          const by = Date.now() + RESUBSCRIBE_SPREAD_MS;
          for (const account of batch) this.deliverSpread(account, { kind: 'resubscribed', by });
        },
        (err) =>
          this.logger.warn(
            { err: String(err), accounts: batch.length },
            'resubscribing to account events failed',
          ),
      );
    }
  }

  /** Accounts grouped so that each group is one SSUBSCRIBE (one slot on a cluster). */
  private batches(accounts: string[]): string[][] {
    const groups = new Map<number, string[]>();
    const cluster = isCluster(this.subscriber);
    for (const account of accounts) {
      const slot = cluster ? keySlot(accountKeys(account).events) : 0;
      const group = groups.get(slot) ?? [];
      group.push(account);
      groups.set(slot, group);
    }
    const out: string[][] = [];
    for (const group of groups.values()) {
      for (let i = 0; i < group.length; i += RESUBSCRIBE_BATCH) {
        out.push(group.slice(i, i + RESUBSCRIBE_BATCH));
      }
    }
    return out;
  }

  private deliverSpread(account: string, event: AccountEvent): void {
    for (const listener of [...(this.listeners.get(account) ?? [])]) {
      const timer = setTimeout(() => {
        if (!this.listeners.get(account)?.has(listener)) return;
        try {
          listener(event);
        } catch (err) {
          this.logger.error({ err: String(err) }, 'event listener failed');
        }
      }, Math.random() * RESUBSCRIBE_SPREAD_MS);
      timer.unref?.();
    }
  }

  private deliver(account: string, event: AccountEvent): void {
    for (const listener of [...(this.listeners.get(account) ?? [])]) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err: String(err) }, 'event listener failed');
      }
    }
  }

  /**
   * Adds a listener for an account's events. Resolves once the Redis
   * subscription is active, so that no event published after it is missed;
   * rejects if it could not be made. Returns the function that removes the listener.
   */
  async subscribe(account: string, listener: AccountListener): Promise<() => void> {
    let set = this.listeners.get(account);
    if (!set) {
      const created = new Set<AccountListener>();
      set = created;
      this.listeners.set(account, created);
      const key = accountKeys(account).events;
      const subscribed = Promise.resolve(this.subscriber.ssubscribe(key)).catch((err: unknown) => {
        this.logger.warn({ err: String(err), account }, 'subscribing to account events failed');
        // Forget it, so that the next subscriber tries again.
        if (this.listeners.get(account) === created) {
          this.listeners.delete(account);
          this.pending.delete(account);
        }
        throw err;
      });
      this.pending.set(account, subscribed);
    }
    set.add(listener);
    try {
      await this.pending.get(account);
    } catch (err) {
      set.delete(listener);
      // a closed or unreachable subscriber connection is the store's 503, like a script call
      rethrowStoreError(err);
    }
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const current = this.listeners.get(account);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.listeners.delete(account);
        this.pending.delete(account);
        Promise.resolve(this.subscriber.sunsubscribe(accountKeys(account).events)).catch(
          () => undefined,
        );
      }
    };
  }

  /** Accounts with a Redis subscription on this pod. */
  subscribedAccounts(): number {
    return this.listeners.size;
  }
}
