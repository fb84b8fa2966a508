/**
 * The outcomes of one delivery loop's attempts, waiting to be recorded. The loop records them
 * in batches, together with its next take (destination_result records many, in the order they
 * ended, then leases what the freed slots allow): an outcome that ends while the loop waits
 * wakes it and goes out at once; those that end while its call is in flight go together in the
 * next call. No timer holds an outcome back, so a quiet destination records each as soon as
 * it ends, and a busy one makes one call per round trip instead of two per message.
 *
 * An outcome that is not recorded (its call failed, its destination is gone or was replaced)
 * resolves with null: its lease lapses and the message is delivered again (at-least-once), as
 * when a pod dies mid-request.
 */
import type { AttemptOutcome, AttemptResult } from '../relay';

/** Most outcomes in one call (its ARGV holds each attempt's log entry, up to ~1.3 KB). */
export const MAX_BATCH = 100;

export interface PendingOutcome {
  /** the destination the message was taken for (a call records outcomes of one) */
  destination: string;
  outcome: AttemptOutcome;
  resolve: (result: AttemptResult | null) => void;
}

export class OutcomeQueue {
  private queue: PendingOutcome[] = [];

  get size(): number {
    return this.queue.length;
  }

  /** Queues an outcome; resolves with its result once recorded, or null when not. */
  add(destination: string, outcome: AttemptOutcome): Promise<AttemptResult | null> {
    return new Promise((resolve) => this.queue.push({ destination, outcome, resolve }));
  }

  /**
   * The next batch, oldest first, of the destination's outcomes (null: none is current); the
   * others' (a destination deleted or replaced since their take) are given up.
   */
  next(destination: string | null, max = MAX_BATCH): PendingOutcome[] {
    const batch: PendingOutcome[] = [];
    while (this.queue.length > 0 && batch.length < max) {
      const p = this.queue.shift()!;
      if (p.destination === destination) batch.push(p);
      else p.resolve(null);
    }
    return batch;
  }
}

/** Resolves a batch with its results in order (null: not recorded). */
export function settleBatch(
  batch: readonly PendingOutcome[],
  results: readonly AttemptResult[] | null,
): void {
  batch.forEach((p, i) => p.resolve(results?.[i] ?? null));
}
