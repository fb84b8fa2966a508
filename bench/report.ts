/**
 * Turns the runs into medians, target verdicts (every ratio computed within one
 * run, then the median of the per-run ratios), a JSON file, an SVG chart and the
 * generated section of BENCHMARKS.md (between the bench:start/bench:end markers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { median, round } from './stats';
import type { EntrancesResult } from './entrances';
import type { PushResult } from './push';
import type { FiltersResult } from './filters';
import type { GroupsResult } from './groups';
import type { RoutesResult } from './routes';
import type { HistoryBenchResult } from './history';
import { FLOOR } from './systems';
import type { FanoutResult, LatencyResult, ScaleResult, W1Result, W2Result } from './workloads';

export interface RunResult {
  w1: Record<string, W1Result>;
  w2: Record<string, W2Result>;
  w2_everysec: Record<string, W2Result>;
  /** sequential one-write round trips on each Redis: what one fsync costs on this disk */
  fsync?: Record<'always' | 'everysec', { p50_ms: number; p99_ms: number }>;
  w3: Record<string, LatencyResult>;
  w4: {
    one_channel?: FanoutResult;
    /** the same frames from a bare `ws` server (bench/floor.ts) to as many clients */
    bare_ws?: FanoutResult;
    many_channels?: FanoutResult;
  };
  w5:
    | {
        backlog_small: number;
        backlog_big: number;
        channels: number;
        small: ScaleResult;
        big: ScaleResult;
        many_channels: ScaleResult;
        bytes_per_msg: number;
      }
    | Record<string, never>;
  /** filter evaluation, in process (bench/filters.ts) */
  filters?: FiltersResult;
  /** issue 27: routed sends against a plain send (bench/routes.ts) */
  routes?: RoutesResult;
  /** the entrances side by side (bench/entrances.ts) */
  entrances?: EntrancesResult;
  /** message groups and SQS FIFO (bench/groups.ts) */
  groups?: GroupsResult;
  /** message history (bench/history.ts) */
  history?: HistoryBenchResult;
  /** push destinations (bench/push.ts) */
  push?: PushResult;
}

export interface BenchResults {
  date: string;
  command: string;
  quick: boolean;
  settings: object;
  machine: Record<string, string | number>;
  runs: RunResult[];
  medians?: unknown;
  targets?: Target[];
}

export interface Target {
  /** issue 18's list, a later issue's, or the earlier targets that still apply */
  list: 'issue18' | 'issue24' | 'issue25' | 'issue26' | 'issue27' | 'issue28' | 'earlier';
  workload: string;
  target: string;
  measured: string;
  met: boolean | null;
}

const ROOT = path.resolve(__dirname, '..', '..');
const SYSTEMS = [FLOOR, 'relayq', 'raw Lua ceiling', 'BullMQ', 'RSMQ', 'NATS JetStream'];
const PHASES = ['produce', 'drain', 'mixed'] as const;
const W2_MODES = [
  ['w2', 'always'],
  ['w2_everysec', 'everysec'],
] as const;

/** Median over runs of a number picked from each run (NaN when missing). */
function med(runs: RunResult[], pick: (r: RunResult) => number | null | undefined): number {
  return median(runs.map((r) => pick(r) ?? NaN));
}

const fmt = (x: number, digits = 0): string =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : 'n/a';

/** A target on the median over runs of a within-run ratio or value. */
function target(
  list: Target['list'],
  workload: string,
  text: string,
  value: number,
  measured: string,
  met: (v: number) => boolean,
): Target {
  return {
    list,
    workload,
    target: text,
    measured,
    met: Number.isFinite(value) ? met(value) : null,
  };
}

/**
 * Issue 24's W2 and W3 targets: single sends ≥ 0.6 of the floor with p99 ≤ 2x its (medians
 * of the runs' ratios); W3 p99 ≤ 25 ms in every run and no message over 250 ms in any (the
 * worst run counts, not the median).
 */
function issue24Latency(runs: RunResult[]): Target[] {
  const out: Target[] = [];
  for (const [key, mode] of W2_MODES) {
    const req = med(runs, (r) => (r[key].relayq?.req_s ?? NaN) / (r[key][FLOOR]?.req_s ?? NaN));
    const p99 = med(runs, (r) => (r[key].relayq?.p99_ms ?? NaN) / (r[key][FLOOR]?.p99_ms ?? NaN));
    out.push(
      target(
        'issue24',
        `W2 ${mode}`,
        "relayq ≥ 0.6 of the floor's req/s",
        req,
        `relayq / floor = ${fmt(req, 2)}`,
        (v) => v >= 0.6,
      ),
      target(
        'issue24',
        `W2 ${mode}`,
        "relayq p99 ≤ 2× the floor's p99",
        p99,
        `p99 relayq / floor = ${fmt(p99, 2)}`,
        (v) => v <= 2,
      ),
    );
  }
  for (const mode of ['relayq long poll', 'relayq WebSocket-triggered']) {
    const measured = runs.map((r) => r.w3[mode]).filter((x) => x !== undefined);
    const worstP99 = measured.length ? Math.max(...measured.map((x) => x.p99_ms)) : NaN;
    const worstMax = measured.length ? Math.max(...measured.map((x) => x.max_ms)) : NaN;
    out.push(
      target(
        'issue24',
        `W3 ${mode.replace('relayq ', '')}`,
        'p99 ≤ 25 ms in each of 5 consecutive runs, no message over 250 ms in any',
        Math.max(worstP99 / 25, worstMax / 250),
        `worst of ${measured.length} runs: p99 ${fmt(worstP99, 1)} ms, max ${fmt(worstMax, 1)} ms`,
        (v) => v <= 1,
      ),
    );
  }
  return out;
}

/** Issue 18's targets, then the earlier targets that still apply. */
/** Issue 26's targets (bench/groups.ts). */
function groupTargets(runs: RunResult[]): Target[] {
  const g = (f: (x: GroupsResult) => number) => med(runs, (r) => (r.groups ? f(r.groups) : NaN));
  const order = runs.find((r) => r.groups)?.groups?.order;
  const bad = g((x) => x.order.order_violations + x.order.lost);
  const pulls = g((x) => x.fairness.pulls_to_serve_singles);
  const over = g((x) => x.fairness.worst_over_share);
  const ratio = g((x) => x.throughput.ratio);
  const fifo = g((x) => Math.min(x.sqs_fifo.send_per_s, x.sqs_fifo.receive_delete_per_s));
  return [
    target(
      'issue26',
      'Groups order',
      `${fmt(order?.messages ?? NaN)} messages over ${fmt(order?.groups ?? NaN)} groups, 16 consumers on 2 pods, one pod killed and restarted, random ack/retry: 0 order violations, 0 lost`,
      bad,
      `${fmt(g((x) => x.order.order_violations))} violations, ${fmt(g((x) => x.order.lost))} lost (${fmt(g((x) => x.order.redeliveries))} redeliveries, ${fmt(g((x) => x.order.msgs_per_s))} msgs/s)`,
      (v) => v === 0,
    ),
    target(
      'issue26',
      'Groups fairness',
      'one group of 100,000 beside 1,000 singles: no pull of 100 over its share, every single within 11 pulls',
      Math.max(over, pulls - 11),
      `${fmt(pulls)} pulls; worst pull ${fmt(over)} over the share (big group ${fmt(g((x) => x.fairness.big))})`,
      (v) => v <= 0,
    ),
    target(
      'issue26',
      'Groups throughput',
      'pull + ack on a grouped channel ≥ 0.5 of the same without groups',
      ratio,
      `${fmt(ratio, 2)}x (${fmt(g((x) => x.throughput.grouped_per_s))} vs ${fmt(g((x) => x.throughput.ungrouped_per_s))} msgs/s)`,
      (v) => v >= 0.5,
    ),
    target(
      'issue26',
      'SQS FIFO',
      'batches of 10 through @aws-sdk/client-sqs ≥ 3,000 msgs/s (send, and receive + delete)',
      fifo,
      `send ${fmt(g((x) => x.sqs_fifo.send_per_s))}, receive + delete ${fmt(g((x) => x.sqs_fifo.receive_delete_per_s))} msgs/s (a standard queue in the same run: ${fmt(g((x) => x.sqs_fifo.standard_send_per_s))}, ${fmt(g((x) => x.sqs_fifo.standard_receive_delete_per_s))})`,
      (v) => v >= 3000,
    ),
  ];
}

export function targets(runs: RunResult[]): Target[] {
  const out: Target[] = [];
  for (const [key, mode] of W2_MODES) {
    const req = med(runs, (r) => (r[key].relayq?.req_s ?? NaN) / (r[key][FLOOR]?.req_s ?? NaN));
    const p99 = med(runs, (r) => (r[key].relayq?.p99_ms ?? NaN) / (r[key][FLOOR]?.p99_ms ?? NaN));
    const ms = (who: string) =>
      fmt(
        med(runs, (r) => r[key][who]?.p99_ms),
        1,
      );
    out.push(
      target(
        'issue18',
        `W2 ${mode}`,
        "relayq ≥ 50% of the floor's req/s",
        req,
        `relayq / floor = ${fmt(req, 2)}`,
        (v) => v >= 0.5,
      ),
      target(
        'issue18',
        `W2 ${mode}`,
        "relayq p99 ≤ 2.5× the floor's p99",
        p99,
        `p99 relayq / floor = ${fmt(p99, 2)} (${ms('relayq')} / ${ms(FLOOR)} ms)`,
        (v) => v <= 2.5,
      ),
    );
  }
  for (const p of PHASES) {
    const k = `${p}_msgs_s` as const;
    const ratio = med(
      runs,
      (r) => (r.w1.relayq?.[k] ?? NaN) / (r.w1['raw Lua ceiling']?.[k] ?? NaN),
    );
    out.push(
      target(
        'issue18',
        `W1 ${p}`,
        'relayq (default configuration) ≥ 70% of the raw Lua ceiling',
        ratio,
        `relayq / ceiling = ${fmt(ratio, 2)}`,
        (v) => v >= 0.7,
      ),
    );
  }
  for (const mode of ['relayq long poll', 'relayq WebSocket-triggered']) {
    const v = med(runs, (r) => r.w3[mode]?.p99_ms);
    out.push(
      target(
        'issue18',
        `W3 ${mode.replace('relayq ', '')}`,
        'p99 ≤ 25 ms at 5,000 msgs/s',
        v,
        `p99 ${fmt(v, 1)} ms`,
        (x) => x <= 25,
      ),
    );
  }
  const w4 = med(
    runs,
    (r) => (r.w4.one_channel?.last_p99_ms ?? NaN) / (r.w4.bare_ws?.last_p99_ms ?? NaN),
  );
  out.push(
    target(
      'issue18',
      'W4 one channel',
      "p99 to the last of the subscribers ≤ 1.25× a bare ws broadcast's",
      w4,
      `relayq / bare ws = ${fmt(w4, 2)} (${fmt(
        med(runs, (r) => r.w4.one_channel?.last_p99_ms),
        1,
      )} / ${fmt(
        med(runs, (r) => r.w4.bare_ws?.last_p99_ms),
        1,
      )} ms)`,
      (v) => v <= 1.25,
    ),
  );
  const bytes = med(runs, (r) => r.w5.bytes_per_msg);
  out.push(
    target(
      'issue18',
      'W5 memory',
      '≤ 450 B of Redis memory per 200 B message',
      bytes,
      `${fmt(bytes)} B`,
      (v) => v <= 450,
    ),
  );
  for (const [what, key] of [
    ['send p50', 'send_p50_ms'],
    ['pull p50', 'pull_p50_ms'],
  ] as const) {
    const ratio = med(runs, (r) =>
      r.w5.big && r.w5.small ? r.w5.big[key] / r.w5.small[key] : NaN,
    );
    out.push(
      target(
        'issue18',
        `W5 ${what}`,
        'big backlog within 1.5× of the 1k one',
        ratio,
        `big / 1k = ${fmt(ratio, 2)}`,
        (v) => v <= 1.5,
      ),
    );
  }
  out.push({
    list: 'issue18',
    workload: 'Durability',
    target: '0 lost, 0 duplicated',
    measured: 'its own run: `npm run bench:durability`',
    met: null,
  });

  const webhookRatio = med(runs, (r) => r.entrances?.webhook_ratio);
  const sqsRatio = med(runs, (r) => r.entrances?.sqs_ratio);
  out.push(
    target(
      'issue24',
      'Entrances',
      'webhook ingest (2 KB, GitHub signature verified, 32 concurrent) ≥ 0.9 of the single send',
      webhookRatio,
      `${fmt(webhookRatio, 2)}x (${fmt(med(runs, (r) => r.entrances?.webhook_per_s))} vs ${fmt(
        med(runs, (r) => r.entrances?.send_per_s),
      )} req/s)`,
      (v) => v >= 0.9,
    ),
    target(
      'issue24',
      'Entrances',
      'SQS SendMessage through @aws-sdk/client-sqs ≥ 0.6 of the single send',
      sqsRatio,
      `${fmt(sqsRatio, 2)}x (${fmt(med(runs, (r) => r.entrances?.sqs_per_s))} req/s)`,
      (v) => v >= 0.6,
    ),
  );
  out.push(...issue24Latency(runs));

  out.push(...groupTargets(runs));
  const firstP99 = med(runs, (r) => r.push?.first_attempt?.p99_ms);
  const pushRatio = med(runs, (r) => r.push?.throughput?.ratio);
  const lost = med(runs, (r) => r.push?.failures?.lost);
  const rateOver = med(runs, (r) => r.push?.rate?.worst_window_overshoot_pct);
  const killMax = med(runs, (r) => r.push?.kill?.max_in_flight);
  out.push(
    target(
      'issue25',
      'Push',
      "p99 from the send's answer to the start of the first attempt ≤ 100 ms at 1,000 msgs/s offered",
      firstP99,
      `p99 ${fmt(firstP99, 1)} ms (p50 ${fmt(
        med(runs, (r) => r.push?.first_attempt?.p50_ms),
        1,
      )} ms) at ${fmt(med(runs, (r) => r.push?.first_attempt?.offered_per_s))} msgs/s`,
      (v) => v <= 100,
    ),
    target(
      'issue25',
      'Push',
      'push with parallelism 50 ≥ 0.5 of the same messages pulled and acked over HTTP',
      pushRatio,
      `${fmt(pushRatio, 2)}x (${fmt(med(runs, (r) => r.push?.throughput?.push_per_s))} vs ${fmt(
        med(runs, (r) => r.push?.throughput?.pull_ack_per_s),
      )} msgs/s)`,
      (v) => v >= 0.5,
    ),
    target(
      'issue25',
      'Push',
      'a receiver answering 500 to every third request: every message delivered, 0 lost',
      lost,
      `${fmt(med(runs, (r) => r.push?.failures?.delivered))} of ${fmt(
        med(runs, (r) => r.push?.failures?.messages),
      )} delivered, ${fmt(lost)} lost`,
      (v) => v === 0,
    ),
    target(
      'issue25',
      'Push',
      'rate limit 200/s with 3 pods: overshoot ≤ 1 % over 60 s (worst sliding window)',
      rateOver,
      `worst window ${fmt(med(runs, (r) => r.push?.rate?.most_in_window))} starts (${fmt(
        rateOver,
        2,
      )} %), span ${fmt(
        med(runs, (r) => r.push?.rate?.span_overshoot_pct),
        2,
      )} % over ${fmt(med(runs, (r) => r.push?.rate?.seconds))} s`,
      (v) => v <= 1,
    ),
    target(
      'issue25',
      'Push',
      'parallelism 10 with 3 pods, one SIGKILLed: never 11 in flight at the receiver',
      killMax,
      `most in flight ${fmt(killMax)}; ${fmt(med(runs, (r) => r.push?.kill?.lost))} lost`,
      (v) => v <= 10,
    ),
  );

  const evaluated = med(runs, (r) => r.filters?.evaluated.p99_us);
  out.push(
    target(
      'issue27',
      'Filters',
      'evaluation p99 ≤ 50 µs (10 conditions, 10 KB body)',
      evaluated,
      `p99 ${fmt(evaluated, 1)} µs; ${fmt(
        med(runs, (r) => r.filters?.with_parse.p99_us),
        1,
      )} µs with the body's JSON.parse`,
      (v) => v <= 50,
    ),
  );
  for (const [n, limit] of [
    [10, 1.5],
    [50, 3],
  ] as const) {
    const ratio = med(runs, (r) => r.routes?.[`ratio_${n}`]);
    const routed = med(runs, (r) => r.routes?.[`routes_${n}`].p50_ms);
    const plain = med(runs, (r) => r.routes?.plain.p50_ms);
    out.push(
      target(
        'issue27',
        `Send, ${n} routes`,
        `p50 ≤ ${limit}× a plain send's, one Redis call`,
        ratio,
        `routed / plain = ${fmt(ratio, 2)} (${fmt(routed, 2)} / ${fmt(plain, 2)} ms)`,
        (v) => v <= limit,
      ),
    );
  }

  const records = med(runs, (r) => r.history?.records);
  const firstPage = med(runs, (r) => r.history?.first_page.p95_ms);
  const filtered = med(runs, (r) => r.history?.filtered.p95_ms);
  const sendRatio = med(runs, (r) => r.history?.send_ratio);
  const memoryAt = (r: RunResult, bytes: number) =>
    r.history?.memory.find((m) => Math.abs(m.body_bytes - bytes) < bytes / 10);
  const memoryRatio = med(runs, (r) => memoryAt(r, 1024)?.ratio);
  const memoryRatioSmall = med(runs, (r) => memoryAt(r, 200)?.ratio);
  const replayS = med(runs, (r) => r.history?.replay?.job_s);
  const replayExpected = med(runs, (r) => r.history?.replay?.expected_s);
  const replayWrong = med(runs, (r) => {
    const x = r.history?.replay;
    return x ? x.lost + x.duplicates + x.strays : null;
  });
  out.push(
    target(
      'issue28',
      'History',
      'first page of 50 ≤ 50 ms p95',
      firstPage,
      `p95 ${fmt(firstPage, 1)} ms over ${fmt(records)} records`,
      (v) => v <= 50,
    ),
    target(
      'issue28',
      'History',
      'a filtered search scanning 100,000 records ≤ 500 ms p95',
      filtered,
      `p95 ${fmt(filtered, 1)} ms scanning ${fmt(med(runs, (r) => r.history?.filtered.scanned))}`,
      (v) => v <= 500,
    ),
    target(
      'issue28',
      'History',
      'a send with history on ≤ 1.2x the time of one without',
      sendRatio,
      `${fmt(sendRatio, 2)}x (${fmt(med(runs, (r) => r.history?.send_on_per_s))} vs ${fmt(
        med(runs, (r) => r.history?.send_off_per_s),
      )} sends/s)`,
      (v) => v <= 1.2,
    ),
    target(
      'issue28',
      'History',
      'a bulk replay within 10 % of matched / rate, a pod killed, no loss, no duplicate',
      replayS,
      `${fmt(replayS, 1)} s for ${fmt(replayExpected, 1)} s; ${fmt(replayWrong)} lost, duplicated or stray`,
      (v) => Math.abs(v - replayExpected) <= replayExpected / 10 && replayWrong === 0,
    ),
    target(
      'issue28',
      'History',
      "history ≤ 1.5x the stored message's own memory (1 KB bodies)",
      memoryRatio,
      `${fmt(memoryRatio, 2)}x (${fmt(med(runs, (r) => memoryAt(r, 1024)?.history_bytes_per_record))} vs ${fmt(
        med(runs, (r) => memoryAt(r, 1024)?.message_bytes_per_message),
      )} B); 200 B bodies: ${fmt(memoryRatioSmall, 2)}x`,
      (v) => v <= 1.5,
    ),
  );

  out.push({
    list: 'earlier',
    workload: 'W1',
    target: 'relayq delivers every message exactly once',
    measured: runs
      .map((r) => {
        const x = r.w1.relayq;
        if (!x) return 'n/a';
        return x.exactly_once ? 'yes' : `missing ${x.missing}, dup ${x.duplicates}`;
      })
      .join(' / '),
    met: runs.some((r) => r.w1.relayq)
      ? runs.every((r) => r.w1.relayq?.exactly_once !== false)
      : null,
  });
  for (const peer of ['NATS JetStream', 'BullMQ']) {
    for (const p of PHASES) {
      const k = `${p}_msgs_s` as const;
      const ratio = med(runs, (r) => (r.w1.relayq?.[k] ?? NaN) / (r.w1[peer]?.[k] ?? NaN));
      out.push(
        target(
          'earlier',
          `W1 ${p}`,
          `relayq ahead of ${peer}`,
          ratio,
          `relayq / ${peer} = ${fmt(ratio, 2)}`,
          (v) => v >= 1,
        ),
      );
    }
  }
  return out;
}

function svgChart(runs: RunResult[]): string {
  const systems = SYSTEMS.filter((s) => runs.some((r) => r.w1[s]));
  const values = systems.map((s) => PHASES.map((p) => med(runs, (r) => r.w1[s]?.[`${p}_msgs_s`])));
  const max = Math.max(1, ...values.flat().filter(Number.isFinite));
  const W = 900;
  const H = 340;
  const left = 70;
  const bottom = 40;
  const top = 40;
  const plotH = H - top - bottom;
  const groupW = (W - left - 20) / PHASES.length;
  const barW = Math.min(26, (groupW - 20) / Math.max(1, systems.length));
  const colors = ['#d1495b', '#8d99ae', '#edae49', '#00798c', '#30638e'];
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">W1 throughput, msgs/s (median of ${runs.length} run${runs.length > 1 ? 's' : ''})</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    const y = top + plotH - (plotH * k) / 4;
    parts.push(
      `<line x1="${left}" y1="${y}" x2="${W - 10}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${fmt(round(v, -2))}</text>`,
    );
  }
  PHASES.forEach((p, pi) => {
    const gx = left + pi * groupW + 10;
    systems.forEach((_, si) => {
      const v = values[si][pi];
      if (!Number.isFinite(v)) return;
      const h = (plotH * v) / max;
      const x = gx + si * barW;
      parts.push(
        `<rect x="${x}" y="${top + plotH - h}" width="${barW - 2}" height="${h}" fill="${colors[si % colors.length]}"><title>${systems[si]} ${p}: ${fmt(v)} msgs/s</title></rect>`,
      );
    });
    parts.push(
      `<text x="${gx + (systems.length * barW) / 2}" y="${H - bottom + 16}" text-anchor="middle">${p}</text>`,
    );
  });
  systems.forEach((s, si) => {
    const x = 20 + si * 145;
    parts.push(
      `<rect x="${x}" y="${H - 16}" width="10" height="10" fill="${colors[si % colors.length]}"/>`,
      `<text x="${x + 14}" y="${H - 7}">${s}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

function markdown(res: BenchResults, chartRel: string, jsonRel: string): string {
  const runs = res.runs;
  const m = res.machine;
  const L: string[] = [];
  L.push(
    `Generated by \`${res.command}\` on ${res.date.slice(0, 16).replace('T', ' ')} UTC (${runs.length} run${runs.length > 1 ? 's' : ''}; medians; each ratio is computed within one run, then its median is taken).`,
  );
  L.push('');
  L.push(
    `Machine: ${m.nproc} CPUs (${m.cpu}), ${m.os}; Node ${m.node}; Redis ${m.redis} (AOF, appendfsync always unless noted); ${m.nats}. Raw data: [${jsonRel}](${jsonRel}).`,
  );
  L.push('');
  const verdict = (t: Target) => (t.met === null ? 'not run' : t.met ? 'met' : '**missed**');
  for (const [list, title] of [
    ['issue18', 'Targets (issue 18)'],
    ['issue24', 'Targets (issue 24: entrances side by side)'],
    ['issue25', 'Targets (issue 25: push destinations)'],
    ['issue26', 'Targets (issue 26: message groups, SQS FIFO)'],
    ['issue27', 'Targets (issue 27: routes)'],
    [
      'issue28',
      "Targets (issue 28: history; at the run's scale, the issue's is 1,000,000 records)",
    ],
    ['earlier', 'Earlier targets that still apply'],
  ] as const) {
    L.push(`### ${title}`);
    L.push('');
    L.push('| Workload | Target | Measured | |');
    L.push('|---|---|---|---|');
    for (const t of (res.targets ?? []).filter((x) => x.list === list)) {
      L.push(`| ${t.workload} | ${t.target} | ${t.measured} | ${verdict(t)} |`);
    }
    L.push('');
  }
  if (runs.some((r) => Object.keys(r.w1).length > 0)) {
    L.push(
      `### W1 throughput (${fmt((res.settings as { n: number }).n)} messages of ~200 B; batches of 100, 4 producers in flight, 4 consumer loops)`,
    );
    L.push('');
    L.push(`![W1 throughput](${chartRel})`);
    L.push('');
    L.push(
      '| System | produce msgs/s | drain msgs/s | mixed msgs/s | mixed p50 ms | mixed p99 ms | Redis B/msg | exactly once |',
    );
    L.push('|---|---|---|---|---|---|---|---|');
    for (const s of SYSTEMS) {
      if (!runs.some((r) => r.w1[s])) continue;
      const g = (k: keyof W1Result, d = 0) =>
        fmt(
          med(runs, (r) => r.w1[s]?.[k] as number),
          d,
        );
      const once = runs
        .map((r) =>
          r.w1[s]
            ? r.w1[s].exactly_once
              ? 'yes'
              : `no (missing ${r.w1[s].missing}, dup ${r.w1[s].duplicates})`
            : '-',
        )
        .join(', ');
      L.push(
        `| ${s} | ${g('produce_msgs_s')} | ${g('drain_msgs_s')} | ${g('mixed_msgs_s')} | ${g('mixed_p50_ms', 1)} | ${g('mixed_p99_ms', 1)} | ${s === 'NATS JetStream' ? '-' : g('bytes_per_msg')} | ${once} |`,
      );
    }
    L.push('');
    L.push(
      'Redis B/msg: INFO used_memory after the produce phase minus before, divided by the messages produced.',
    );
    L.push(
      'BullMQ has no batch pull: its consumers are 4 Workers of concurrency 100. RSMQ has no batch calls: a batch is 100 single calls in flight. NATS acks each message with a confirmed ack (ackAck); producers wait for every publish ack.',
    );
    L.push('');
  }
  L.push('### W2 single sends (32 concurrent)');
  L.push('');
  L.push('| System | fsync | req/s | / floor | p50 ms | p99 ms |');
  L.push('|---|---|---|---|---|---|');
  for (const [key, label] of W2_MODES) {
    for (const s of SYSTEMS) {
      if (!runs.some((r) => r[key][s])) continue;
      const g = (k: keyof W2Result, d = 0) =>
        fmt(
          med(runs, (r) => r[key][s]?.[k]),
          d,
        );
      // NATS runs once, against the floor of appendfsync always
      const ratio = med(runs, (r) => (r[key][s]?.req_s ?? NaN) / (r[key][FLOOR]?.req_s ?? NaN));
      L.push(
        `| ${s} | ${s === 'NATS JetStream' ? 'JetStream default' : label} | ${g('req_s')} | ${fmt(ratio, 2)} | ${g('p50_ms', 2)} | ${g('p99_ms', 2)} |`,
      );
    }
  }
  L.push('');
  if (runs.some((r) => r.w2[FLOOR] || r.w2_everysec[FLOOR]))
    L.push(
      `${FLOOR}: a bare \`node:http\` server in its own process (bench/floor.ts) that reads the body, \`JSON.parse\`s it and calls relayq's send script once through ioredis; no authentication, validation or logging. "/ floor": req/s over the floor's in the same run and fsync mode (median of the per-run ratios).`,
    );
  L.push('');
  if (runs.some((r) => r.fsync)) {
    const f = (k: 'always' | 'everysec', q: 'p50_ms' | 'p99_ms') =>
      fmt(
        med(runs, (r) => r.fsync?.[k][q]),
        2,
      );
    L.push(
      `One write at a time (INCR round trip, no other load from the benchmark): appendfsync always p50 ${f('always', 'p50_ms')} ms / p99 ${f('always', 'p99_ms')} ms; everysec p50 ${f('everysec', 'p50_ms')} ms / p99 ${f('everysec', 'p99_ms')} ms. Every relayq request that writes waits for at least one such fsync.`,
    );
    L.push('');
  }
  L.push('### W3 latency at 5,000 msgs/s offered (batches of 50 every 10 ms)');
  L.push('');
  L.push('| Consumer | p50 ms | p99 ms | max ms | received / offered |');
  L.push('|---|---|---|---|---|');
  for (const mode of ['relayq long poll', 'relayq WebSocket-triggered']) {
    if (!runs.some((r) => r.w3[mode])) continue;
    const g = (k: keyof LatencyResult, d = 1) =>
      fmt(
        med(runs, (r) => r.w3[mode]?.[k]),
        d,
      );
    L.push(
      `| ${mode} | ${g('p50_ms')} | ${g('p99_ms')} | ${g('max_ms')} | ${g('received', 0)} / ${g('offered', 0)} |`,
    );
  }
  L.push('');
  L.push('### W4 fan-out (send response to event)');
  L.push('');
  L.push('| Shape | p50 ms | p99 ms | p99 to last subscriber ms | events / expected |');
  L.push('|---|---|---|---|---|');
  for (const [key, label] of [
    ['one_channel', 'one channel, N subscribers'],
    ['bare_ws', 'bare ws broadcast: one channel, N subscribers'],
    ['many_channels', 'N channels, 1 subscriber each'],
  ] as const) {
    if (!runs.some((r) => r.w4[key])) continue;
    const g = (k: keyof FanoutResult, d = 1) =>
      fmt(
        med(runs, (r) => r.w4[key]?.[k]),
        d,
      );
    L.push(
      `| ${label} (N = ${fmt((res.settings as { w4Subs: number }).w4Subs)}) | ${g('p50_ms')} | ${g('p99_ms')} | ${g('last_p99_ms')} | ${g('events', 0)} / ${g('expected', 0)} |`,
    );
  }
  L.push('');
  L.push('### W5 scale (sequential single send, pull of 10 + ack)');
  L.push('');
  L.push('| Channel state | send p50 ms | send p99 ms | pull p50 ms | pull p99 ms |');
  L.push('|---|---|---|---|---|');
  const st = res.settings as { w5Small: number; w5Big: number; w5Channels: number };
  for (const [key, label] of [
    ['small', `${fmt(st.w5Small)} queued`],
    ['big', `${fmt(st.w5Big)} queued`],
    ['many_channels', `${fmt(st.w5Channels)} channels in the account`],
  ] as const) {
    if (!runs.some((r) => r.w5[key as 'small'])) continue;
    const g = (k: keyof ScaleResult) =>
      fmt(
        med(runs, (r) => (r.w5[key as 'small'] as ScaleResult | undefined)?.[k]),
        2,
      );
    L.push(
      `| ${label} | ${g('send_p50_ms')} | ${g('send_p99_ms')} | ${g('pull_p50_ms')} | ${g('pull_p99_ms')} |`,
    );
  }
  L.push('');
  L.push(
    `Redis memory per stored ~200 B message while filling to ${fmt(st.w5Big)}: ${fmt(med(runs, (r) => r.w5.bytes_per_msg))} B (all bookkeeping: record, queue and expiry index entries).`,
  );
  if (runs.some((r) => r.filters)) {
    L.push('');
    L.push('### Filters (in process, one evaluation at a time)');
    L.push('');
    L.push('| Case | p50 µs | p99 µs |');
    L.push('|---|---|---|');
    for (const [key, label] of [
      ['evaluated', '10 conditions, ~10 KB body already parsed'],
      ['with_parse', "10 conditions, with the text body's JSON.parse"],
      ['headers_only', 'one header condition (the body is never parsed)'],
    ] as const) {
      const g = (k: 'p50_us' | 'p99_us') =>
        fmt(
          med(runs, (r) => r.filters?.[key][k]),
          2,
        );
      L.push(`| ${label} | ${g('p50_us')} | ${g('p99_us')} |`);
    }
  }
  return L.join('\n');
}

/** The generated section for results read back from a results file (`--report FILE`). */
export function renderReport(res: BenchResults, jsonRel: string): string {
  res.targets = targets(res.runs);
  return markdown(res, 'bench/results/w1.svg', jsonRel);
}

/**
 * Writes the results. Only a full run (no --quick, --only or --systems) rewrites
 * the generated section of BENCHMARKS.md; other runs write bench/results/quick.md
 * (--quick) or bench/results/<date>.md next to their JSON.
 */
export function writeReport(res: BenchResults): string {
  res.targets = targets(res.runs);
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const { only, systems } = res.settings as { only: unknown; systems: unknown };
  const partial = !res.quick && (only !== null || systems !== null);
  const stamp = res.date.slice(0, 19).replace(/:/g, '-') + (res.quick ? '-quick' : '');
  const jsonFile = path.join(dir, `${stamp}.json`);
  fs.writeFileSync(jsonFile, JSON.stringify(res, null, 2) + '\n');
  const svgName = res.quick ? 'w1-quick.svg' : partial ? `${stamp}-w1.svg` : 'w1.svg';
  if (res.runs.some((r) => Object.keys(r.w1).length > 0))
    fs.writeFileSync(path.join(dir, svgName), svgChart(res.runs));
  const md = markdown(res, `bench/results/${svgName}`, `bench/results/${stamp}.json`);
  if (res.quick || partial) {
    fs.writeFileSync(path.join(dir, res.quick ? 'quick.md' : `${stamp}.md`), md + '\n');
    console.log(md);
  } else {
    const file = path.join(ROOT, 'BENCHMARKS.md');
    const text = fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8')
      : '# Benchmarks\n\n<!-- bench:start -->\n<!-- bench:end -->\n';
    const start = text.indexOf('<!-- bench:start -->');
    const end = text.indexOf('<!-- bench:end -->');
    const next =
      start >= 0 && end > start
        ? `${text.slice(0, start)}<!-- bench:start -->\n${md}\n${text.slice(end)}`
        : `${text}\n<!-- bench:start -->\n${md}\n<!-- bench:end -->\n`;
    fs.writeFileSync(file, next);
    console.log(md);
  }
  return jsonFile;
}
