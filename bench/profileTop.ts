/**
 * What a relayq process (or the floor) spent its CPU on, from a `--profile DIR`
 * run of the benchmark; after `npx tsc -p bench/tsconfig.json`:
 *   node dist/bench/profileTop.js FILE.cpuprofile [--top N | --callers FUNCTION]
 *        [--from S] [--to S] [--requests N]
 * Prints self time by group (a package under node_modules, relayq's own src/,
 * Node's internals, GC), by owner (native code counted for its caller) and the top
 * N functions by self time with their file:line; `--callers` shows where one
 * function's self time was called from. `--from`/`--to` count only those seconds
 * of the profile (its busy-ms-per-second line shows where the workload ran);
 * `--requests` adds µs per request for the requests served in them.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** The group a function's file belongs to. */
export function groupOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return '(program: native, unattributed)';
    return 'native / builtins';
  }
  if (url.startsWith('node:')) return 'node internals';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = file.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const src = file.lastIndexOf('/src/');
  if (src >= 0)
    return `relayq src/${file
      .slice(src + 5)
      .split('/')[0]
      .replace(/\.js$/, '')}`;
  return path.basename(file);
}

/** Which part of a profile to count: seconds from its start, and the requests served then. */
export interface Window {
  fromS: number;
  toS: number;
  requests: number | null;
}

const WHOLE: Window = { fromS: 0, toS: Infinity, requests: null };

/**
 * Self time (µs) of every node within the window, from the samples' time deltas
 * (a sample's delta is the time since the previous one: the time until the next
 * sample is charged to this one's node, as Chrome's DevTools do).
 */
function selfTimes(p: CpuProfile, w: Window): Map<number, number> {
  const self = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  let t = p.startTime;
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    const at = (t - p.startTime) / 1e6;
    if (at < w.fromS || at >= w.toS) continue;
    self.set(samples[i], (self.get(samples[i]) ?? 0) + Math.max(0, deltas[i + 1] ?? 0));
  }
  return self;
}

/** Busy (not idle) ms in each second of the profile: where the workload ran. */
export function timeline(p: CpuProfile): string {
  const idle = new Set(
    p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id),
  );
  const busy: number[] = [];
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  let t = p.startTime;
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    if (idle.has(samples[i])) continue;
    const sec = Math.floor((t - p.startTime) / 1e6);
    busy[sec] = (busy[sec] ?? 0) + Math.max(0, deltas[i + 1] ?? 0) / 1000;
  }
  return Array.from(busy, (ms, sec) => `${sec}s:${Math.round(ms ?? 0)}`).join(' ');
}

/** A file as a reader knows it: `ioredis/built/Redis.js`, `src/store/queue.js`. */
function shortFile(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) return file.slice(nm + '/node_modules/'.length);
  return file.replace(/^.*\/dist\//, '');
}

const UNOWNED = new Set(['native / builtins', 'node internals', '(program: native, unattributed)']);

/**
 * The group that a node's time is spent for: its own group, or for native code and
 * Node's internals, that of the nearest caller in a package or in relayq's src
 * (so a socket write counts for ioredis or for the HTTP response that made it).
 */
function owners(p: CpuProfile): Map<number, string> {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const owner = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = owner.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const group = groupOf(n.callFrame.url, n.callFrame.functionName);
    const up = parent.get(id);
    const mine =
      UNOWNED.has(group) && up !== undefined && byId.get(up)!.callFrame.functionName !== '(root)'
        ? ownerOf(up)
        : group;
    owner.set(id, mine);
    return mine;
  };
  for (const n of p.nodes) ownerOf(n.id);
  return owner;
}

const share = (x: number, of: number, w: Window) =>
  `${((100 * x) / of).toFixed(1).padStart(5)} %` +
  (w.requests ? `  ${(x / w.requests).toFixed(1).padStart(6)} µs/req` : '');

export function summary(p: CpuProfile, top: number, w: Window = WHOLE): string {
  const self = selfTimes(p, w);
  const byGroup = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const owner = owners(p);
  const byFunction = new Map<string, { group: string; us: number }>();
  for (const n of p.nodes) {
    const us = self.get(n.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const group = groupOf(url, functionName);
    byGroup.set(group, (byGroup.get(group) ?? 0) + us);
    const o = owner.get(n.id)!;
    byOwner.set(o, (byOwner.get(o) ?? 0) + us);
    const file = shortFile(url);
    const key = `${functionName || '(anonymous)'}  ${file ? `${file}:${lineNumber + 1}` : ''}`;
    const f = byFunction.get(key) ?? { group, us: 0 };
    f.us += us;
    byFunction.set(key, f);
  }
  const total = [...byGroup.values()].reduce((a, b) => a + b, 0);
  const busy = total - (byGroup.get('(idle)') ?? 0);
  const L: string[] = [
    `profile: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy; % of busy time` +
      (w.requests ? `, µs per request (${w.requests} requests)` : ''),
    `busy ms per second: ${timeline(p)}`,
    '',
    'self time by group:',
  ];
  for (const [g, us] of [...byGroup].sort((a, b) => b[1] - a[1])) {
    if (g === '(idle)' || us < busy / 1000) continue;
    L.push(`  ${share(us, busy, w)}  ${g}`);
  }
  L.push('', 'self time by owner (native code and Node internals counted for their caller):');
  for (const [g, us] of [...byOwner].sort((a, b) => b[1] - a[1])) {
    if (g === '(idle)' || us < busy / 1000) continue;
    L.push(`  ${share(us, busy, w)}  ${g}`);
  }
  L.push('', `top ${top} functions by self time:`);
  for (const [k, f] of [...byFunction].sort((a, b) => b[1].us - a[1].us).slice(0, top)) {
    if (f.group === '(idle)') continue;
    L.push(`  ${share(f.us, busy, w)}  ${k}  [${f.group}]`);
  }
  return L.join('\n');
}

/**
 * Where a function's self time came from: its callers' chains (`depth` frames of
 * packages or relayq's src, Node's internals skipped), heaviest first.
 */
export function callers(p: CpuProfile, name: string, depth: number, w = WHOLE): string {
  const self = selfTimes(p, w);
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const chains = new Map<string, number>();
  for (const n of p.nodes) {
    if (n.callFrame.functionName !== name) continue;
    const frames: string[] = [];
    for (
      let id = parent.get(n.id);
      id !== undefined && frames.length < depth;
      id = parent.get(id)
    ) {
      const f = byId.get(id)!.callFrame;
      if (UNOWNED.has(groupOf(f.url, f.functionName))) continue;
      const file = shortFile(f.url);
      frames.push(`${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`);
    }
    const key = frames.join(' < ');
    chains.set(key, (chains.get(key) ?? 0) + (self.get(n.id) ?? 0));
  }
  return [...chains]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, us]) => `${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)
    .join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const file = args.find(
    (a, k) => !a.startsWith('--') && (k === 0 || !args[k - 1].startsWith('--')),
  );
  const opt = (name: string): string | undefined => {
    const k = args.indexOf(name);
    return k >= 0 ? args[k + 1] : undefined;
  };
  if (!file) {
    console.error(
      'usage: node dist/bench/profileTop.js FILE.cpuprofile [--top N | --callers FUNCTION]' +
        ' [--from S] [--to S] [--requests N]',
    );
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const w: Window = {
    fromS: Number(opt('--from') ?? 0),
    toS: Number(opt('--to') ?? Infinity),
    requests: opt('--requests') ? Number(opt('--requests')) : null,
  };
  const name = opt('--callers');
  if (name) console.log(callers(profile, name, 6, w));
  else console.log(summary(profile, Number(opt('--top') ?? 30), w));
}
