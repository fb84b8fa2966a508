/**
 * Long-poll waits: a pull with wait_ms waits for a new_message event on its
 * channel (from any pod, a delay or a lease ending) instead of polling Redis.
 *
 * An event wakes only as many of the channel's waiters on this pod as
 * messages became available (the event's count, 1 when an older publisher did
 * not say), oldest waiter first; the others keep waiting without touching Redis.
 * A woken waiter that filled its batch may have left more behind (events can
 * be coalesced), so it wakes the next one: waking stays correct whatever the
 * count, and a send costs the same however many waiters the channel has.
 * A signal is owed to the channel, not to the waiter it landed on: one that
 * reaches a waiter while its pull is out may be for a message that pull
 * missed, so a waiter that leaves with it (its pull returned messages, or its
 * wait ended) passes it on, as it does its hand-off, once it has left the
 * list (never to itself). Signals may merge: one pull that starts after them
 * takes everything they announced, or fills its batch and hands off.
 * A token revocation or account deletion wakes the waits it concerns, which
 * then check their caller again. One event subscription per account, shared
 * by its waiters; a waiter holds no Redis connection of its own.
 */
import type { AccountEvent, EventHub } from './events';

/** Why a waiter's next attempt runs. */
export type WakeReason = 'first' | 'message' | 'recheck';

export interface WaitAttempt<T> {
  /** true to answer with value now */
  done: boolean;
  value: T;
  /** true when the attempt may have left messages available (it filled its batch) */
  more?: boolean;
}

export interface WaitCaller {
  tokenId: string;
  /** a dashboard session's sign-in token, whose revocation ends the session */
  parentTokenId?: string | null;
}

interface Waiter {
  caller: WaitCaller;
  sleeping: boolean;
  /**
   * woken, or told while busy to attempt again instead of sleeping; cleared when an
   * attempt starts (that attempt's pull covers it)
   */
  signalled: boolean;
  recheck: boolean;
  wake: () => void;
}

interface AccountWaits {
  ready: Promise<() => void>;
  /** channel -> its waiters on this pod, in arrival order */
  channels: Map<string, Waiter[]>;
  size: number;
}

export class ChannelWaiters {
  private readonly accounts = new Map<string, AccountWaits>();
  private released = false;

  constructor(private readonly hub: EventHub) {}

  /** On shutdown: every wait answers now with what it has, and new ones do not wait. */
  releaseAll(): void {
    this.released = true;
    this.wakeAll();
  }

  /** Every wait looks again now (Redis was found unreachable: each answers with the 503). */
  wakeAll(): void {
    for (const waits of this.accounts.values()) {
      for (const list of waits.channels.values()) for (const w of list) this.rouse(w, false);
    }
  }

  /** Waiters now on this pod (all accounts). */
  count(): number {
    let n = 0;
    for (const waits of this.accounts.values()) n += waits.size;
    return n;
  }

  /** Wakes a sleeping waiter, or tells a busy one to try again rather than sleep. */
  private rouse(w: Waiter, recheck: boolean): void {
    if (recheck) w.recheck = true;
    w.signalled = true;
    this.interrupt(w);
  }

  /** Ends a waiter's sleep (it then sees why: a signal, an abort, the shutdown). */
  private interrupt(w: Waiter): void {
    if (w.sleeping) {
      w.sleeping = false;
      w.wake();
    }
  }

  /** Wakes up to `count` waiters of the channel: sleeping ones oldest first, then busy ones. */
  private wakeSome(account: string, channel: string, count: number): void {
    const list = this.accounts.get(account)?.channels.get(channel);
    if (!list) return;
    let left = count;
    const roused = new Set<Waiter>();
    for (const w of list) {
      if (left <= 0) return;
      if (w.sleeping) {
        this.rouse(w, false);
        roused.add(w);
        left--;
      }
    }
    // More became available than were asleep: waiters busy trying now try once more.
    for (const w of list) {
      if (left <= 0) return;
      if (!w.signalled && !roused.has(w)) {
        w.signalled = true;
        left--;
      }
    }
  }

  private onEvent(account: string, event: AccountEvent): void {
    const waits = this.accounts.get(account);
    if (!waits) return;
    switch (event.kind) {
      case 'new_message':
        this.wakeSome(account, event.channel, event.count ?? 1);
        return;
      case 'resubscribed':
        // events may have been missed: every wait of the account looks again
        for (const list of waits.channels.values()) for (const w of list) this.rouse(w, false);
        return;
      case 'token_revoked':
        for (const list of waits.channels.values()) {
          for (const w of list) {
            if (w.caller.tokenId === event.tokenId || w.caller.parentTokenId === event.tokenId)
              this.rouse(w, true);
          }
        }
        return;
      case 'account_deleted':
        for (const list of waits.channels.values()) for (const w of list) this.rouse(w, true);
        return;
    }
  }

  private async join(account: string, channel: string, waiter: Waiter): Promise<() => void> {
    let waits = this.accounts.get(account);
    if (!waits) {
      const created: AccountWaits = {
        ready: this.hub.subscribe(account, (event) => this.onEvent(account, event)),
        channels: new Map(),
        size: 0,
      };
      waits = created;
      this.accounts.set(account, created);
      created.ready.catch(() => {
        if (this.accounts.get(account) === created) this.accounts.delete(account);
      });
    }
    const current = waits;
    let list = current.channels.get(channel);
    if (!list) current.channels.set(channel, (list = []));
    list.push(waiter);
    current.size++;
    const leave = () => {
      const l = current.channels.get(channel);
      const i = l ? l.indexOf(waiter) : -1;
      if (l && i >= 0) {
        l.splice(i, 1);
        if (l.length === 0) current.channels.delete(channel);
      }
      if (--current.size === 0 && this.accounts.get(account) === current) {
        this.accounts.delete(account);
        current.ready.then((unsubscribe) => unsubscribe()).catch(() => undefined);
      }
    };
    try {
      await current.ready;
    } catch (err) {
      leave();
      throw err;
    }
    return leave;
  }

  /**
   * Joins the channel's waiters, then runs attempt() until it is done, again
   * each time this waiter is woken (for a message, or to check its caller
   * after a revocation), until the deadline or the signal aborts. Returns the
   * last result's value.
   */
  async waitFor<T>(
    account: string,
    channel: string,
    caller: WaitCaller,
    waitMs: number,
    signal: AbortSignal,
    attempt: (reason: WakeReason) => Promise<WaitAttempt<T>>,
  ): Promise<T> {
    const waiter: Waiter = {
      caller,
      sleeping: false,
      signalled: false,
      recheck: false,
      wake: () => undefined,
    };
    const leave = await this.join(account, channel, waiter);
    const deadline = Date.now() + waitMs;
    // an abort ends the wait; it is no message signal, so nothing is passed on for it
    const onAbort = () => this.interrupt(waiter);
    signal.addEventListener('abort', onAbort);
    let reason: WakeReason = 'first';
    let handOff = false;
    try {
      for (;;) {
        waiter.signalled = false;
        const result = await attempt(reason);
        handOff = result.done && result.more === true;
        const remaining = deadline - Date.now();
        if (result.done || remaining <= 0 || signal.aborted || this.released) return result.value;
        if (!waiter.signalled && !waiter.recheck) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              waiter.sleeping = false;
              resolve();
            }, remaining);
            waiter.wake = () => {
              clearTimeout(timer);
              resolve();
            };
            waiter.sleeping = true;
          });
        }
        if (signal.aborted || this.released) return result.value;
        reason = waiter.recheck ? 'recheck' : 'message';
        waiter.recheck = false;
        if (Date.now() >= deadline) {
          // One last look per wait (not per send): the answer carries a fresh backlog count.
          waiter.signalled = false;
          const last = await attempt(reason);
          handOff = last.done && last.more === true;
          return last.value;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      leave();
      // after leaving, so that neither the hand-off nor a signal this waiter did not act
      // on can land on itself
      const owed = (handOff ? 1 : 0) + (waiter.signalled ? 1 : 0);
      if (owed > 0) this.wakeSome(account, channel, owed);
    }
  }
}
