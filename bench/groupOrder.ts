/**
 * The grouped consumers of bench/groups.ts: C consumer loops over relayq pods (HTTP pull of 10,
 * ack or retry), and the checker of the order each group is received in. A pod may be killed and
 * replaced while they run: a loop whose pod is gone waits for its replacement.
 */
import { JsonClient } from './http';

/** A pod the consumers talk to; `client` is replaced when the pod is. */
export interface PodSlot {
  client: JsonClient;
  /** false while the pod is down */
  up: boolean;
}

interface Pulled {
  body: number;
  attempts: number;
  group_id?: string;
  lease_id: string;
}

/**
 * Each group's messages are sent with bodies 0, 1, 2, ... A pull's messages of one group must
 * start at the group's lowest unacked message and go on consecutively. An ack is uncertain
 * until its answer confirms it: while in flight, when its request failed (its pod killed) or
 * when it acked fewer than asked (a lease that ran out), its messages may come back (a
 * redelivery, not a violation) or not (the ack was applied). A message received again after
 * its ack was confirmed, or skipped while never acked, is a violation.
 */
export class OrderChecker {
  private readonly next = new Map<string, number>();
  private readonly uncertain = new Map<string, Set<number>>();
  violations = 0;
  /** messages received again after their ack was confirmed, or skipped without an ack */
  duplicates = 0;
  skipped = 0;
  delivered = 0;
  /** deliveries of a message delivered before (attempts > 1), whoever received it then */
  redelivered = 0;
  retried = 0;

  /** Checks one pull's messages of `group` (in the order received). */
  received(group: string, indices: number[]): void {
    this.delivered += indices.length;
    const maybe = this.uncertain.get(group) ?? new Set<number>();
    const expected = this.next.get(group) ?? 0;
    const start = indices[0];
    // a redelivery of messages whose ack was in doubt, or a skip over ones that were acked
    for (let k = Math.min(start, expected); k < Math.max(start, expected); k++) {
      if (maybe.delete(k)) continue;
      this.violations++;
      if (start < expected) this.duplicates++;
      else this.skipped++;
    }
    indices.forEach((index, k) => {
      if (index !== start + k) this.violations++;
    });
    this.next.set(group, start);
  }

  /** These messages of the group, just checked, are being acked (`retried` others retried). */
  acking(group: string, indices: number[], retried: number): void {
    this.next.set(group, (this.next.get(group) ?? 0) + indices.length);
    this.retried += retried;
    const set = this.uncertain.get(group) ?? new Set<number>();
    for (const i of indices) set.add(i);
    this.uncertain.set(group, set);
  }

  /** The ack of these messages was applied. */
  confirmed(group: string, indices: number[]): void {
    const set = this.uncertain.get(group);
    for (const i of indices) set?.delete(i);
  }

  /** Messages of `perGroup` per group never acked (0 when every group reached its end). */
  lost(groups: string[], perGroup: number): number {
    return groups.reduce((n, g) => n + perGroup - (this.next.get(g) ?? 0), 0) + this.skipped;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `consumers` loops, spread over the pods, until `done()`: each pulls up to 10 messages,
 * then per group acks a prefix and retries the rest (with probability `retryRate`).
 */
export async function consume(opts: {
  pods: PodSlot[];
  channel: string;
  consumers: number;
  retryRate: number;
  checker: OrderChecker | null;
  visibilityMs: number;
  done: () => boolean;
}): Promise<{ errors: number }> {
  const { pods, channel, checker } = opts;
  const base = `/v1/relay/channels/${channel}/messages`;
  const pullBody = JSON.stringify({ batch_size: 10, visibility_timeout_ms: opts.visibilityMs });
  let errors = 0;
  const loop = async (pod: PodSlot) => {
    while (!opts.done()) {
      if (!pod.up) {
        await sleep(50);
        continue;
      }
      let got: Pulled[];
      try {
        got = (await pod.client.post<{ result: { messages: Pulled[] } }>(`${base}/pull`, pullBody))
          .result.messages;
      } catch {
        errors++;
        await sleep(50);
        continue;
      }
      if (got.length === 0) {
        await sleep(5);
        continue;
      }
      const byGroup = new Map<string, Pulled[]>();
      for (const m of got) {
        const g = m.group_id ?? '';
        byGroup.set(g, [...(byGroup.get(g) ?? []), m]);
      }
      const ack: string[] = [];
      const retries: { lease_id: string; delay_seconds: number }[] = [];
      const acked: [string, number[]][] = [];
      for (const [group, ms] of byGroup) {
        // ack a prefix, retry the rest (a consumer that stops at its first failure)
        const cut =
          Math.random() < opts.retryRate ? Math.floor(Math.random() * ms.length) : ms.length;
        ms.forEach((m, k) =>
          k < cut ? ack.push(m.lease_id) : retries.push({ lease_id: m.lease_id, delay_seconds: 0 }),
        );
        if (checker && group !== '') {
          checker.received(
            group,
            ms.map((m) => m.body),
          );
          checker.redelivered += ms.filter((m) => m.attempts > 1).length;
          const indices = ms.slice(0, cut).map((m) => m.body);
          checker.acking(group, indices, ms.length - cut);
          acked.push([group, indices]);
        }
      }
      try {
        const r = await pod.client.post<{ result: { acked_count: number } }>(
          `${base}/ack`,
          JSON.stringify({ lease_ids: ack, retries }),
        );
        if (r.result.acked_count === ack.length) {
          for (const [group, indices] of acked) checker?.confirmed(group, indices);
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.consumers }, (_, i) => loop(pods[i % pods.length])));
  return { errors };
}
