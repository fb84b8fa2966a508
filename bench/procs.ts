/**
 * Child processes of the benchmark: a private redis-server, nats-server and
 * relayq, each on a free loopback port with its data in a temp folder. Every
 * process is killed by its pid when the benchmark ends (or fails).
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/embedded/process';
export { freePort };

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${what} did not open port ${port} within ${timeoutMs} ms`);
}

export interface Proc {
  port: number;
  child: ChildProcess;
  dir: string;
  stop(): Promise<void>;
}

/**
 * The standard streams of a child: its stdout and stderr written straight to a file in
 * its folder, as a container runtime would, not piped through this process (which is
 * the load generator, on the same cores).
 */
function logFile(dir: string, logName: string): StdioOptions {
  const fd = fs.openSync(path.join(dir, logName), 'a');
  return ['ignore', fd, fd];
}

function track(child: ChildProcess, dir: string, port: number, stdio: StdioOptions): Proc {
  children.add(child);
  // the child holds its own copy of the log file's descriptor
  if (Array.isArray(stdio) && typeof stdio[1] === 'number') fs.closeSync(stdio[1]);
  return {
    port,
    child,
    dir,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/** Stops every child, then removes their data folders (unless BENCH_KEEP_DATA is set). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  if (process.env.BENCH_KEEP_DATA) return;
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `relayq-bench-${prefix}-`));
  dirs.add(dir);
  return dir;
}

/** redis-server with the embedded default's persistence: AOF, fsync `always` or `everysec`. */
export async function startRedis(appendfsync: 'always' | 'everysec'): Promise<Proc> {
  const port = await freePort();
  const dir = tempDir(`redis-${appendfsync}`);
  const stdio = logFile(dir, 'redis.log');
  const child = spawn(
    process.env.REDIS_SERVER_BIN || 'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      appendfsync,
      '--save',
      '',
      '--protected-mode',
      'yes',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio },
  );
  const proc = track(child, dir, port, stdio);
  await waitForPort(port, child, 'redis-server');
  return proc;
}

export const NATS_BIN = process.env.NATS_SERVER_BIN || '/usr/sbin/nats-server';

export function natsAvailable(): boolean {
  return fs.existsSync(NATS_BIN);
}

export async function startNats(): Promise<Proc> {
  const port = await freePort();
  const dir = tempDir('nats');
  const stdio = logFile(dir, 'nats.log');
  const child = spawn(
    NATS_BIN,
    ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, '--http_port', '0'],
    { stdio },
  );
  const proc = track(child, dir, port, stdio);
  await waitForPort(port, child, 'nats-server');
  return proc;
}

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const BENCH_PLANS = JSON.stringify({
  paid: {
    max_storage_bytes: 100_000_000_000,
    max_channels: 100_000,
    retention_seconds: 1_209_600,
    // the benchmark is one account: its sockets and waits are not a tenant's abuse
    max_websocket_connections: 100_000,
    max_long_polls: 100_000,
  },
});

/** node's options to write a CPU profile named `<name>.cpuprofile` into `dir` at exit. */
function cpuProf(dir: string | undefined, name: string): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}

/** relayq as its own process (`node dist/src/cli/main.js serve`) over the given Redis. */
export async function startRelay(
  redisPort: number,
  opts: { cpuProfDir?: string; env?: Record<string, string> } = {},
): Promise<Proc> {
  const port = await freePort();
  const metricsPort = await freePort();
  const dir = tempDir('relayq');
  const main = path.resolve(__dirname, '..', 'src', 'cli', 'main.js');
  const nodeArgs = cpuProf(opts.cpuProfDir, `relayq-${port}`);
  const stdio = logFile(dir, 'relayq.log');
  const child = spawn(process.execPath, [...nodeArgs, main, 'serve'], {
    stdio,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
      RELAY_PLANS: BENCH_PLANS,
      RELAY_DEFAULT_PLAN: 'paid',
      RELAY_MAX_WS_CONNECTIONS_PER_TOKEN: '100000',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      RELAY_DATA_DIR: dir,
      ...opts.env,
    },
  });
  const proc = track(child, dir, port, stdio);
  await waitForPort(port, child, 'relayq');
  return proc;
}

/** Waits until the relayq on `port` answers GET /readyz. */
export async function waitReady(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`relayq on ${port} not ready in ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The W2 floor / W4 bare `ws` peer (bench/floor.ts) as its own process over the given Redis. */
export async function startFloor(redisPort: number, cpuProfDir?: string): Promise<Proc> {
  const port = await freePort();
  const dir = tempDir('floor');
  const script = path.resolve(__dirname, 'floor.js');
  const stdio = logFile(dir, 'floor.log');
  const child = spawn(process.execPath, [...cpuProf(cpuProfDir, `floor-${port}`), script], {
    stdio,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      REDIS_PORT: String(redisPort),
    },
  });
  const proc = track(child, dir, port, stdio);
  await waitForPort(port, child, 'the W2 floor');
  return proc;
}

/** A workload run on its own (`node dist/bench/<name>.js`): its result as JSON, then every process stopped. */
export function runAlone(run: () => Promise<unknown>): void {
  run()
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => stopAll());
}
