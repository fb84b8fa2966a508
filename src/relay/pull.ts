/**
 * A pull that may wait (`wait_ms` on the relay API, `WaitTimeSeconds` over SQS):
 * one path for every entrance, so the long-poll cap, the wake-up rules and the
 * release of unanswered leases hold alike. A pull that finds messages is one script
 * call; only one that found none takes a long-poll place and waits.
 */
import { RelayError } from '../errors';
import type { PullOptions, PullResult } from '../store/types';
import type { Caller } from '../types';
import { authorize } from './authorize';
import type { RelayDeps } from './deps';

export interface PullRequest {
  /**
   * checked by each pull; counted against the rate limits (when count) by the first, or,
   * for a pull that may wait, by the authorize call that finds its plan (the long-poll cap)
   */
  caller: Caller;
  channel: string;
  options: PullOptions;
  /** 0: answer at once; null: the channel's receive_wait_seconds (SQS's default wait) */
  waitMs: number | null;
  /**
   * aborted when the client has gone before its whole answer was written: nothing more is
   * leased, and the leases of an answer it did not take go back (src/web/answerSignal.ts)
   */
  signal: AbortSignal;
}

function leaseIds(result: PullResult): string[] {
  return result.messages.map((json) => (JSON.parse(json) as { lease_id: string }).lease_id);
}

export async function pull(deps: RelayDeps, r: PullRequest): Promise<PullResult> {
  const { channel, options, signal } = r;
  const pullOnce = async (caller: Caller): Promise<PullResult> => {
    if (signal.aborted) return { backlogCount: 0, messages: [], receiveWaitMs: null };
    const result = await deps.store.queue.pull(caller, channel, options);
    if (result.messages.length === 0) return result;
    // Leases whose answer cannot be written any more go back at once, not counted; so do
    // those of an answer the client leaves while it is being written.
    const giveBack = () => deps.store.queue.release(caller.accountId, channel, leaseIds(result));
    if (signal.aborted) {
      await giveBack();
      result.messages = [];
    } else {
      signal.addEventListener(
        'abort',
        () => {
          giveBack().catch((err: unknown) =>
            deps.log.warn(
              { channel, error: (err as Error).message },
              'pull: could not give back the leases of a cut-off answer',
            ),
          );
        },
        { once: true },
      );
    }
    return result;
  };
  // A pull that answers at once is one call: the script checks and counts the caller. A
  // pull that may wait waits only when that first pull found nothing.
  const first = await pullOnce(r.caller);
  const waitMs = r.waitMs ?? first.receiveWaitMs ?? 0;
  if (waitMs === 0 || first.messages.length > 0 || signal.aborted) return first;
  // An account this pod just found at its long-poll cap is refused without another call.
  deps.limits.refuseLongPollIfFull(r.caller.accountId);
  const counted = r.caller.count ? { ...r.caller, count: false } : r.caller;
  const auth = await authorize(deps, counted, channel);
  const release = await deps.limits.holdLongPoll(auth.accountId, auth.limits);
  try {
    return await deps.waiters.waitFor(
      auth.accountId,
      channel,
      auth,
      waitMs,
      signal,
      async (reason) => {
        // Every pull checks the token again (a revocation, expiry or account deletion refuses
        // it); a revocation wakes the wait ('recheck') so that its pull does so at once.
        if (reason !== 'recheck' && auth.expiresMs !== null && auth.expiresMs <= Date.now())
          throw new RelayError(
            'credential_expired',
            auth.session ? 'session has expired; sign in again' : 'token has expired',
          );
        const result = await pullOnce(counted);
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
