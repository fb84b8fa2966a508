/**
 * The outcomes of one delivery loop's attempts, recorded in batches (destination_result takes
 * many, in the order they ended): an outcome that ends while no call is in flight goes out at
 * once, alone; those that end while one is in flight wait for it and then go together in the
 * next. No timer holds an outcome back, so a quiet destination records each as soon as it
 * ends and a busy one makes one call per round trip instead of one per message.
 *
 * An outcome whose call fails resolves with null: nothing was recorded, its lease lapses and
 * the message is delivered again (at-least-once), as when a pod dies mid-request.
 */
import type { AttemptOutcome, AttemptResult } from '../relay';

/** Most outcomes in one call (its ARGV holds each attempt's log entry, up to ~1.3 KB). */
export const MAX_BATCH = 100;

interface Pending {
  /** the destination the message was taken for (a call records outcomes of one) */
  destination: string;
  outcome: AttemptOutcome;
  resolve: (result: AttemptResult | null) => void;
}

export class OutcomeBatcher {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  /** calls made, and outcomes they carried (for tests and the benchmark's figures) */
  calls = 0;
  recorded = 0;

  constructor(
    private readonly record: (
      destination: string,
      outcomes: AttemptOutcome[],
    ) => Promise<AttemptResult[]>,
    private readonly failed: (err: unknown, outcomes: number) => void,
    private readonly max = MAX_BATCH,
  ) {}

  /** Records the outcome with those that end beside it; its result, or null when not recorded. */
  add(destination: string, outcome: AttemptOutcome): Promise<AttemptResult | null> {
    return new Promise((resolve) => {
      this.queue.push({ destination, outcome, resolve });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const destination = this.queue[0].destination;
      let size = 1;
      while (
        size < this.max &&
        size < this.queue.length &&
        this.queue[size].destination === destination
      )
        size++;
      const batch = this.queue.splice(0, size);
      this.calls++;
      try {
        const results = await this.record(
          destination,
          batch.map((p) => p.outcome),
        );
        this.recorded += batch.length;
        batch.forEach((p, i) => p.resolve(results[i] ?? null));
      } catch (err) {
        this.failed(err, batch.length);
        for (const p of batch) p.resolve(null);
      }
    }
    this.flushing = null;
  }
}
