/**
 * A pull that may wait (`wait_ms` on the relay API, `WaitTimeSeconds` over SQS):
 * one path for every entrance, so the long-poll cap, the wake-up rules and the
 * release of unanswered leases hold alike.
 */
import type { AuthContext } from '../auth/authenticate';
import { unauthorized } from '../errors';
import type { PullOptions, PullResult } from '../store/types';
import type { HttpDeps } from './context';

export interface PullRequest {
  auth: AuthContext;
  channel: string;
  options: PullOptions;
  /** 0: answer at once */
  waitMs: number;
  /** aborted when the client has gone: nothing more is leased, and its leases go back */
  signal: AbortSignal;
  /** authenticates the caller again (after a revocation or account deletion woke the wait) */
  recheck(): Promise<void>;
}

export async function pullMaybeWaiting(deps: HttpDeps, r: PullRequest): Promise<PullResult> {
  const { auth, channel, options, signal } = r;
  const pull = async (): Promise<PullResult> => {
    if (signal.aborted) return { backlogCount: 0, messages: [] };
    const result = await deps.store.queue.pull(auth.accountId, channel, auth.limits, options);
    // Leases whose answer cannot be written any more go back at once, not counted.
    if (signal.aborted) {
      const leaseIds = result.messages.map(
        (json) => (JSON.parse(json) as { lease_id: string }).lease_id,
      );
      result.messages = [];
      await deps.store.queue.release(auth.accountId, channel, leaseIds);
    }
    return result;
  };
  if (r.waitMs === 0) return pull();
  const release = await deps.limits.holdLongPoll(auth.accountId, auth.limits);
  try {
    return await deps.waiters.waitFor(
      auth.accountId,
      channel,
      auth,
      r.waitMs,
      signal,
      async (reason) => {
        // Woken for a message, the caller was already authenticated on arrival; a
        // revocation or account deletion wakes it to check again. Expiry needs no Redis.
        if (reason === 'recheck') await r.recheck();
        else if (auth.expiresMs !== null && auth.expiresMs <= Date.now())
          throw unauthorized(
            auth.session ? 'session has expired; sign in again' : 'token has expired',
          );
        const result = await pull();
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
