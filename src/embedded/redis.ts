/**
 * The embedded default: with no REDIS_URL, a private redis-server child keeps
 * its data under RELAY_DATA_DIR, append-only with fsync on every write, on a
 * unix socket (or 127.0.0.1 when the socket path would be too long). It stops
 * with the service.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { freePort, isAlive, processCommand } from './process';

export class EmbeddedRedisError extends Error {}

export interface EmbeddedRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * A redis-server left running by a service that was killed: stop it before
 * starting ours. The caller holds the data directory's lock (src/embedded/lock.ts),
 * so no live relayq uses it; a pid that now names another program (its command
 * line does not name the redis-server binary) is left alone.
 */
async function stopLeftover(pidFile: string, bin: string, logger: Logger): Promise<void> {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1 || !isAlive(pid)) return;
  const command = processCommand(pid);
  if (command !== null && !command.includes(path.basename(bin))) {
    logger.warn(
      { pid, command },
      'redis.pid names a process that is not a redis-server; left alone',
    );
    return;
  }
  logger.warn({ pid }, 'stopping a redis-server left running from an earlier start');
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

function waitForConnect(
  connect: () => net.Socket,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) {
        reject(
          new EmbeddedRedisError(
            `redis-server exited with code ${child.exitCode}; see its log in the data directory`,
          ),
        );
        return;
      }
      const socket = connect();
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline)
          reject(new EmbeddedRedisError('redis-server did not start within 10 s'));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startEmbeddedRedis(
  bin: string,
  dataDir: string,
  logger: Logger,
): Promise<EmbeddedRedis> {
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new EmbeddedRedisError(
      `cannot run "${bin}": relayq needs redis-server 7 or newer for its embedded mode. ` +
        'Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), ' +
        'set REDIS_SERVER_BIN to its path, or set REDIS_URL to use a Redis you run.',
    );
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const pidFile = path.join(dataDir, 'redis.pid');
  await stopLeftover(pidFile, bin, logger);
  const socketPath = path.join(dataDir, 'redis.sock');
  const useSocket = socketPath.length < 100;
  const port = useSocket ? 0 : await freePort();
  if (useSocket && fs.existsSync(socketPath)) fs.rmSync(socketPath);
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dataDir,
    '--pidfile',
    pidFile,
    '--logfile',
    path.join(dataDir, 'redis.log'),
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
  ];
  if (useSocket) args.push('--unixsocket', socketPath, '--unixsocketperm', '700');
  const child = spawn(bin, args, { stdio: 'ignore' });
  child.once('error', (err) => logger.error({ err: String(err) }, 'redis-server failed'));
  await waitForConnect(
    () => (useSocket ? net.connect(socketPath) : net.connect(port, '127.0.0.1')),
    child,
    10_000,
  ).catch((err) => {
    child.kill('SIGKILL'); // one that never answered is not left running
    throw err;
  });
  logger.info(
    { dataDir, socket: useSocket ? socketPath : `127.0.0.1:${port}` },
    'embedded redis-server started',
  );
  return {
    url: useSocket ? `unix://${socketPath}` : `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
