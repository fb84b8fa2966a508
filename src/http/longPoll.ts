/**
 * A pull that may wait (`wait_ms` on the relay API, `WaitTimeSeconds` over SQS):
 * one path for every entrance, so the long-poll cap, the wake-up rules and the
 * release of unanswered leases hold alike.
 */
import type { AuthContext } from '../auth/authenticate';
import { unauthorized } from '../errors';
import type { Caller } from '../store/scripts/define';
import type { PullOptions, PullResult } from '../store/types';
import type { HttpDeps } from './context';

export interface PullRequest {
  /** checked by each pull; counted against the rate limits by the first only (when count) */
  caller: Caller;
  /**
   * The full caller, for a pull that may wait (its long-poll place needs the plan): one
   * authorize call, which then counts the request instead of the first pull.
   */
  authorize(): Promise<AuthContext>;
  channel: string;
  options: PullOptions;
  /** 0: answer at once */
  waitMs: number;
  /** aborted when the client has gone: nothing more is leased, and its leases go back */
  signal: AbortSignal;
}

export async function pullMaybeWaiting(deps: HttpDeps, r: PullRequest): Promise<PullResult> {
  const { channel, options, signal } = r;
  const pull = async (caller: Caller): Promise<PullResult> => {
    if (signal.aborted) return { backlogCount: 0, messages: [] };
    const result = await deps.store.queue.pull(caller, channel, options);
    // Leases whose answer cannot be written any more go back at once, not counted.
    if (signal.aborted) {
      const leaseIds = result.messages.map(
        (json) => (JSON.parse(json) as { lease_id: string }).lease_id,
      );
      result.messages = [];
      await deps.store.queue.release(caller.accountId, channel, leaseIds);
    }
    return result;
  };
  // A pull that answers at once is one call: the script checks and counts the caller.
  if (r.waitMs === 0) return pull(r.caller);
  const auth = await r.authorize();
  const counted = r.caller.count ? { ...r.caller, count: false } : r.caller;
  const release = await deps.limits.holdLongPoll(auth.accountId, auth.limits);
  try {
    return await deps.waiters.waitFor(
      auth.accountId,
      channel,
      auth,
      r.waitMs,
      signal,
      async (reason) => {
        // Every pull checks the token again (a revocation, expiry or account deletion refuses
        // it); a revocation wakes the wait ('recheck') so that its pull does so at once.
        if (reason !== 'recheck' && auth.expiresMs !== null && auth.expiresMs <= Date.now())
          throw unauthorized(
            auth.session ? 'session has expired; sign in again' : 'token has expired',
          );
        const result = await pull(counted);
        return {
          done: result.messages.length > 0,
          value: result,
          more: result.messages.length >= options.batchSize,
        };
      },
    );
  } finally {
    release();
  }
}
