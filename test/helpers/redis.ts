/**
 * A private redis-server per test file, on a free port, from the redis-server
 * on PATH (REDISMS_SYSTEM_BINARY): never the machine's 6379, never a mock.
 */
import { execFileSync } from 'node:child_process';
import Redis from 'ioredis';
import { RedisMemoryServer } from 'redis-memory-server';

function systemBinary(): string {
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
  url: string;
  host: string;
  port: number;
  /** a plain client for assertions (flush, key scans) */
  client: Redis;
  flush(): Promise<void>;
  stop(): Promise<void>;
  /** stops the server but keeps its port, for outage tests; start() brings it back */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  process.env.REDISMS_SYSTEM_BINARY = systemBinary();
  const server = new RedisMemoryServer({
    instance: { args: ['--save', '', '--appendonly', 'no'] },
  });
  const host = await server.getHost();
  const port = await server.getPort();
  const url = `redis://${host}:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    url,
    host,
    port,
    client,
    flush: async () => {
      await client.flushall();
    },
    stop: async () => {
      client.disconnect();
      await server.stop();
    },
    pause: async () => {
      await server.stop();
    },
    resume: async () => {
      await server.start();
    },
  };
}
