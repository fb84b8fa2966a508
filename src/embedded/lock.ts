/**
 * One relayq per data directory. The embedded mode holds `relayq.lock` in
 * RELAY_DATA_DIR while it runs: its pid, that process's start time and, once
 * it listens, its port. A second start, or a command that prints the
 * credentials, reads it and leaves the directory and its redis-server alone
 * while that relayq lives. A lock whose process is gone, or whose pid now
 * names another process (another start time), is stale and is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAlive, processStartTime } from './process';

export const LOCK_FILE = 'relayq.lock';

export interface DataDirOwner {
  pid: number;
  /** the owner's start time as the system gave it (null where it could not tell) */
  started: string | null;
  /** the API port, once the owner listens */
  port: number | null;
}

/** A live relayq holds the data directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
  ) {
    super(
      `a relayq (pid ${owner.pid}${owner.port === null ? '' : `, port ${owner.port}`}) uses the data directory ${dataDir}; ` +
        'stop it first, or set RELAY_DATA_DIR to another directory',
    );
  }
}

export interface DataDirLock {
  /** Records the port the API listens on (for `relayq credentials`). */
  setPort(port: number): void;
  /** Removes the lock (only if it is still ours). */
  release(): void;
}

function parseOwner(text: string): DataDirOwner | null {
  try {
    const value = JSON.parse(text) as Partial<DataDirOwner>;
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0) return null;
    return {
      pid: value.pid as number,
      started: typeof value.started === 'string' ? value.started : null,
      port: Number.isInteger(value.port) ? (value.port as number) : null,
    };
  } catch {
    return null;
  }
}

/** Whether the lock's process is alive and is the one that wrote it. */
function isLive(owner: DataDirOwner): boolean {
  if (!isAlive(owner.pid)) return false;
  if (owner.started === null) return true;
  const started = processStartTime(owner.pid);
  return started === null || started === owner.started;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The live relayq that holds the data directory, or null (no lock, or a stale one). */
export function dataDirOwner(dataDir: string): DataDirOwner | null {
  const text = readText(path.join(dataDir, LOCK_FILE));
  const owner = text === null ? null : parseOwner(text);
  return owner && isLive(owner) ? owner : null;
}

/**
 * Takes the data directory for this process, or throws DataDirInUseError
 * naming the live relayq that holds it. A stale lock is moved aside under a
 * name of our own before it is removed, so that of two starts racing over it
 * only one takes it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const me: DataDirOwner = { pid: process.pid, started: processStartTime(process.pid), port: null };
  // the lock appears whole or not at all: written aside, then linked (fails if one exists) or renamed
  const draft = `${file}.${process.pid}.tmp`;
  const writeDraft = () => fs.writeFileSync(draft, `${JSON.stringify(me)}\n`, { mode: 0o600 });
  writeDraft();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(draft, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err;
      }
      const text = readText(file);
      if (text === null) continue;
      const owner = parseOwner(text);
      if (owner && isLive(owner)) throw new DataDirInUseError(dataDir, owner);
      takeAside(file, text, dataDir);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  const ours = () => parseOwner(readText(file) ?? '')?.pid === process.pid;
  return {
    setPort(port) {
      me.port = port;
      if (!ours()) return;
      writeDraft();
      fs.renameSync(draft, file);
    },
    release() {
      if (ours()) fs.rmSync(file, { force: true });
    },
  };
}

/** Removes a stale lock whose text we read, unless another start replaced it meanwhile. */
function takeAside(file: string, text: string, dataDir: string): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readText(aside);
  if (moved === text) {
    fs.rmSync(aside, { force: true });
    return;
  }
  // another start took the directory between our read and our rename: give it back
  fs.renameSync(aside, file);
  const taken = parseOwner(moved ?? '');
  if (taken && isLive(taken)) throw new DataDirInUseError(dataDir, taken);
}
