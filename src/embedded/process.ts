/** Small helpers for local processes and ports (the embedded Redis, tests and benchmarks). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * When a process started, as the system tells it (Linux: the start tick in
 * /proc/<pid>/stat; elsewhere `ps -o lstart=`), or null when it cannot tell.
 * With the pid it names one process: a pid reused by another process has
 * another start time.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces and parentheses): state is field 3
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22, starttime
  } catch {
    return psField(pid, 'lstart=');
  }
}

/** The command line of a process (arguments joined by spaces), or null when it cannot tell. */
export function processCommand(pid: number): string | null {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter(Boolean).join(' ');
  } catch {
    return psField(pid, 'command=');
  }
}

function psField(pid: number, field: string): string | null {
  const ps = spawnSync('ps', ['-o', field, '-p', String(pid)], { encoding: 'utf8' });
  const out = ps.status === 0 ? ps.stdout.trim() : '';
  return out === '' ? null : out;
}
