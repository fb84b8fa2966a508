/** The benchmark's statistics and target verdicts (bench/stats.ts, bench/report.ts). */
import { targets, type RunResult } from '../../bench/report';
import { median, percentile, summarize } from '../../bench/stats';
import { body } from '../../bench/workloads';

const w1 = (produce: number, drain: number, mixed: number) => ({
  produce_msgs_s: produce,
  drain_msgs_s: drain,
  mixed_msgs_s: mixed,
  mixed_p50_ms: 1,
  mixed_p99_ms: 2,
  bytes_per_msg: 400,
  exactly_once: true,
  missing: 0,
  duplicates: 0,
});

const run = (relay: number, ceiling: number): RunResult => ({
  w1: { relayq: w1(relay, relay, relay), 'raw Lua ceiling': w1(ceiling, ceiling, ceiling) },
  w2: {},
  w2_everysec: {},
  w3: {},
  w4: {},
  w5: {},
});

test('percentiles and medians', () => {
  expect(percentile(Float64Array.from([1, 2, 3, 4]), 50)).toBe(2);
  expect(percentile(Float64Array.from([1, 2, 3, 4]), 99)).toBe(4);
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 2, 3])).toBe(2.5);
  expect(median([NaN, 5])).toBe(5);
  expect(summarize([5, 1, 3])).toEqual({ p50: 3, p99: 5, max: 5, n: 3 });
});

test('a ratio is taken within each run, then its median across runs', () => {
  // run-by-run ratios 0.4, 0.75, 0.9: median 0.75 (the ratio of the medians would be 0.68)
  const verdicts = targets([run(400, 1000), run(750, 1000), run(900, 1000)]);
  const produce = verdicts.find((t) => t.workload === 'W1 produce');
  expect(produce).toMatchObject({
    target: 'relayq (default configuration) ≥ 70% of the raw Lua ceiling',
    measured: 'relayq / ceiling = 0.75',
    met: true,
  });
  // one run below the target does not decide; two do
  const missed = targets([run(400, 1000), run(650, 1000), run(900, 1000)]).find(
    (t) => t.workload === 'W1 produce',
  );
  expect(missed).toMatchObject({ measured: 'relayq / ceiling = 0.65', met: false });
  const nats = verdicts.find((t) => t.target === 'relayq ahead of NATS JetStream');
  expect(nats?.met).toBeNull();
});

test('message bodies are about 200 bytes of JSON carrying index and send time', () => {
  const text = body(12345, 1000.5);
  expect(text.length).toBeGreaterThanOrEqual(195);
  expect(text.length).toBeLessThanOrEqual(205);
  expect(JSON.parse(text)).toMatchObject({ i: 12345, t: 1000.5 });
});
