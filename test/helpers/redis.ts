/**
 * A private redis-server per test file, on a free port, from the redis-server
 * on PATH (REDISMS_SYSTEM_BINARY): never the machine's 6379, never a mock.
 * Tests use it through TestRedis, which hides the topology, so that the same
 * test file can run on one Redis or on a Redis Cluster. Every server works in
 * a temporary directory of its own (--dir), removed when it stops: whatever it
 * writes (a replica's dump.rdb, an append-only file) never lands in the repo.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { RedisMemoryServer } from 'redis-memory-server';

export function redisServerBinary(): string {
  if (process.env.REDISMS_SYSTEM_BINARY) return process.env.REDISMS_SYSTEM_BINARY;
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'redis-server is not on PATH: install it (apt-get install redis-server) to run the tests',
    );
  }
}

export interface TestRedis {
  /** environment for loadConfig(): REDIS_URL, or REDIS_CLUSTER_NODES */
  env: Record<string, string>;
  topology: 'single' | 'cluster';
  /** runs a command on every master (one for a single Redis) */
  eachMaster<T>(fn: (node: Redis) => Promise<T>): Promise<T[]>;
  /** every key matching the pattern, across all masters */
  keys(pattern: string): Promise<string[]>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface SingleTestRedis extends TestRedis {
  url: string;
  port: number;
  client: Redis;
  /** stops the server but keeps its port; resume() brings it back */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

/**
 * One redis-server without persistence; `extraArgs` come last and win (the
 * data survive pause() and resume() with ['--appendonly', 'yes']).
 */
export async function startSingleRedis(extraArgs: string[] = []): Promise<SingleTestRedis> {
  process.env.REDISMS_SYSTEM_BINARY = redisServerBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-redis-'));
  const server = new RedisMemoryServer({
    instance: { args: ['--dir', dir, '--save', '', '--appendonly', 'no', ...extraArgs] },
  });
  const host = await server.getHost();
  const port = await server.getPort();
  const url = `redis://${host}:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    env: { REDIS_URL: url },
    topology: 'single',
    url,
    port,
    client,
    eachMaster: async (fn) => [await fn(client)],
    keys: (pattern) => client.keys(pattern),
    flush: async () => {
      await client.flushall();
    },
    stop: async () => {
      client.disconnect();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    pause: async () => {
      await server.stop();
    },
    resume: async () => {
      await server.start();
    },
  };
}

/**
 * The Redis the integration tests run on: one Redis by default; the cluster
 * when RELAYQ_TEST_TOPOLOGY=cluster (see test/helpers/cluster.ts, when present).
 */
export async function startRedis(): Promise<TestRedis> {
  if (process.env.RELAYQ_TEST_TOPOLOGY === 'cluster') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startCluster } = require('./cluster') as { startCluster: () => Promise<TestRedis> };
    return startCluster();
  }
  return startSingleRedis();
}
