/**
 * The built `relayq` command (dist/src/cli/main.js) run as a process with only
 * the given environment (plus PATH and HOME), as a user runs it; and the
 * embedded mode started that way on a data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/embedded/process';
import { eventually } from './app';
import { redisServerBinary } from './redis';

export const ROOT = path.resolve(__dirname, '../..');
export const ENTRY = path.join(ROOT, 'dist/src/cli/main.js');

export interface RelayqProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const started: RelayqProcess[] = [];

/** Runs `relayq <args>`; every process it starts is SIGKILLed by stopAllRelayq(). */
export function relayq(args: string[], env: Record<string, string>): RelayqProcess {
  const child = spawn(process.execPath, [ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const run = { child, stdout: () => out, stderr: () => err, exited };
  started.push(run);
  return run;
}

/** Runs a command to its end: its exit code and output. */
export async function relayqDone(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = relayq(args, env);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

export async function stopAllRelayq(): Promise<void> {
  for (const r of started.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  }
}

/** The environment of the embedded mode on `dataDir`, on free ports of 127.0.0.1. */
export async function embeddedEnv(dataDir: string): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    RELAY_DATA_DIR: dataDir,
    REDIS_SERVER_BIN: redisServerBinary(),
  };
}

export interface EmbeddedRun {
  run: RelayqProcess;
  base: string;
  port: number;
  /** the relay token of the printed `export RELAY_TOKEN=` line ('' when not printed) */
  token: string;
}

/**
 * Starts `relayq serve` in the embedded mode and waits for its quick-start
 * lines (`printed`: with the credentials; otherwise the Dashboard line).
 */
export async function startEmbedded(
  dataDir: string,
  printed = true,
  flags: string[] = [],
): Promise<EmbeddedRun> {
  const env = await embeddedEnv(dataDir);
  const run = relayq(['serve', ...flags], env);
  const ready = printed ? /export RELAY_TOKEN=\S+/ : /^Dashboard: /m;
  await eventually(() => ready.test(run.stdout()) || run.child.exitCode !== null, 20_000, 50);
  expect([run.child.exitCode, run.stderr()]).toEqual([null, '']);
  const token = /export RELAY_TOKEN=(\S+)/.exec(run.stdout())?.[1] ?? '';
  return { run, base: `http://127.0.0.1:${env.PORT}`, port: Number(env.PORT), token };
}

/** The processes (other than this one) whose command line names `text`, e.g. a data directory. */
export function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (command.includes(text)) found.push(`${pid}: ${command.trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
