/**
 * Turns the runs into medians, target verdicts (every ratio computed within one
 * run, then the median of the per-run ratios), a JSON file, an SVG chart and the
 * generated section of BENCHMARKS.md (between the bench:start/bench:end markers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { median, round } from './stats';
import type { FanoutResult, LatencyResult, ScaleResult, W1Result, W2Result } from './workloads';

export interface RunResult {
  w1: Record<string, W1Result>;
  w2: Record<string, W2Result>;
  w2_everysec: Record<string, W2Result>;
  /** sequential one-write round trips on each Redis: what one fsync costs on this disk */
  fsync?: Record<'always' | 'everysec', { p50_ms: number; p99_ms: number }>;
  w3: Record<string, LatencyResult>;
  w4: { one_channel?: FanoutResult; many_channels?: FanoutResult };
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
  workload: string;
  target: string;
  measured: string;
  met: boolean | null;
}

const ROOT = path.resolve(__dirname, '..', '..');
export const CACHED = 'relayq (auth cache 1 s)';
const SYSTEMS = ['relayq', CACHED, 'raw Lua ceiling', 'BullMQ', 'RSMQ', 'NATS JetStream'];
const PHASES = ['produce', 'drain', 'mixed'] as const;

/** Median over runs of a number picked from each run (NaN when missing). */
function med(runs: RunResult[], pick: (r: RunResult) => number | null | undefined): number {
  return median(runs.map((r) => pick(r) ?? NaN));
}

const fmt = (x: number, digits = 0): string =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits }) : 'n/a';

export function targets(runs: RunResult[]): Target[] {
  const out: Target[] = [];
  const phaseKey = (p: (typeof PHASES)[number]) => `${p}_msgs_s` as const;
  for (const me of ['relayq', CACHED])
    for (const peer of ['raw Lua ceiling', 'NATS JetStream', 'BullMQ']) {
      for (const p of PHASES) {
        const ratio = med(runs, (r) => {
          const a = r.w1[me]?.[phaseKey(p)];
          const b = r.w1[peer]?.[phaseKey(p)];
          return a !== undefined && b !== undefined ? a / b : NaN;
        });
        const need = peer === 'raw Lua ceiling' ? 0.5 : 1;
        out.push({
          workload: `W1 ${p}`,
          target:
            peer === 'raw Lua ceiling'
              ? `${me} ≥ 50% of the raw Lua ceiling`
              : `${me} ahead of ${peer}`,
          measured: `${me} / ${peer} = ${fmt(ratio, 2)}`,
          met: Number.isFinite(ratio) ? ratio >= need : null,
        });
      }
    }
  const w1ok = runs.every((r) => r.w1.relayq?.exactly_once !== false);
  out.push({
    workload: 'W1',
    target: 'relayq delivers every message exactly once',
    measured: runs
      .map((r) =>
        r.w1.relayq
          ? r.w1.relayq.exactly_once
            ? 'yes'
            : `missing ${r.w1.relayq.missing}, dup ${r.w1.relayq.duplicates}`
          : 'n/a',
      )
      .join(' / '),
    met: runs.some((r) => r.w1.relayq) ? w1ok : null,
  });
  for (const me of ['relayq', CACHED]) {
    const p99 = med(runs, (r) => r.w2[me]?.p99_ms);
    const p99es = med(runs, (r) => r.w2_everysec[me]?.p99_ms);
    out.push({
      workload: 'W2',
      target: `${me}: p99 ≤ 5 ms, 32 concurrent single sends, appendfsync always`,
      measured: `p99 ${fmt(p99, 2)} ms (everysec: ${fmt(p99es, 2)} ms)`,
      met: Number.isFinite(p99) ? p99 <= 5 : null,
    });
  }
  for (const mode of ['relayq long poll', 'relayq WebSocket-triggered']) {
    const v = med(runs, (r) => r.w3[mode]?.p99_ms);
    out.push({
      workload: `W3 ${mode.replace('relayq ', '')}`,
      target: 'p99 ≤ 25 ms at 5,000 msgs/s',
      measured: `p99 ${fmt(v, 2)} ms`,
      met: Number.isFinite(v) ? v <= 25 : null,
    });
  }
  const w4 = med(runs, (r) => r.w4.one_channel?.last_p99_ms);
  out.push({
    workload: 'W4 one channel',
    target: 'p99 ≤ 20 ms to the last subscriber',
    measured: `p99 ${fmt(w4, 2)} ms`,
    met: Number.isFinite(w4) ? w4 <= 20 : null,
  });
  for (const [what, key] of [
    ['send p50', 'send_p50_ms'],
    ['pull p50', 'pull_p50_ms'],
  ] as const) {
    const ratio = med(runs, (r) =>
      r.w5.big && r.w5.small ? r.w5.big[key] / r.w5.small[key] : NaN,
    );
    out.push({
      workload: `W5 ${what}`,
      target: 'big backlog within 1.5× of the 1k one',
      measured: `big / 1k = ${fmt(ratio, 2)}`,
      met: Number.isFinite(ratio) ? ratio <= 1.5 : null,
    });
  }
  const bytes = med(runs, (r) => r.w5.bytes_per_msg);
  out.push({
    workload: 'W5 memory',
    target: '≤ 450 B of Redis memory per 200 B message',
    measured: `${fmt(bytes)} B`,
    met: Number.isFinite(bytes) ? bytes <= 450 : null,
  });
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
  L.push('### Targets');
  L.push('');
  L.push('| Workload | Target | Measured | |');
  L.push('|---|---|---|---|');
  for (const t of res.targets ?? []) {
    L.push(
      `| ${t.workload} | ${t.target} | ${t.measured} | ${t.met === null ? 'not run' : t.met ? 'met' : '**missed**'} |`,
    );
  }
  L.push('');
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
  L.push('### W2 single sends (32 concurrent)');
  L.push('');
  L.push('| System | fsync | req/s | p50 ms | p99 ms |');
  L.push('|---|---|---|---|---|');
  for (const [key, label] of [
    ['w2', 'always'],
    ['w2_everysec', 'everysec'],
  ] as const) {
    for (const s of SYSTEMS) {
      if (!runs.some((r) => r[key][s])) continue;
      const g = (k: keyof W2Result, d = 0) =>
        fmt(
          med(runs, (r) => r[key][s]?.[k]),
          d,
        );
      L.push(
        `| ${s} | ${s === 'NATS JetStream' ? 'JetStream default' : label} | ${g('req_s')} | ${g('p50_ms', 2)} | ${g('p99_ms', 2)} |`,
      );
    }
  }
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
  return L.join('\n');
}

export function writeReport(res: BenchResults): string {
  res.targets = targets(res.runs);
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = res.date.slice(0, 19).replace(/:/g, '-') + (res.quick ? '-quick' : '');
  const jsonFile = path.join(dir, `${stamp}.json`);
  fs.writeFileSync(jsonFile, JSON.stringify(res, null, 2) + '\n');
  const svgName = res.quick ? 'w1-quick.svg' : 'w1.svg';
  fs.writeFileSync(path.join(dir, svgName), svgChart(res.runs));
  const md = markdown(res, `bench/results/${svgName}`, `bench/results/${stamp}.json`);
  if (res.quick) {
    fs.writeFileSync(path.join(dir, 'quick.md'), md + '\n');
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
