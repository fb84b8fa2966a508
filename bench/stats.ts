/** Percentiles and medians. */

export function percentile(sorted: number[] | Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples: number[]): { p50: number; p99: number; max: number; n: number } {
  const s = Float64Array.from(samples).sort();
  return {
    p50: round(percentile(s, 50)),
    p99: round(percentile(s, 99)),
    max: round(s.length ? s[s.length - 1] : NaN),
    n: s.length,
  };
}

export function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function round(x: number, digits = 2): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Runs `worker` on `concurrency` loops until it returns false; bounded by a deadline. */
export async function pool(
  concurrency: number,
  worker: (loop: number) => Promise<boolean>,
  deadlineMs = Infinity,
): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      while (Date.now() < deadlineMs && (await worker(loop)));
    }),
  );
}
