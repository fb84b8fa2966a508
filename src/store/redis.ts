/**
 * Redis connections: one Redis (REDIS_URL or the embedded server) or a Redis
 * Cluster (REDIS_CLUSTER_NODES). Commands fail fast while Redis is unreachable
 * (no offline queue), so a request answers 503 instead of hanging.
 */
import Redis, { Cluster, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

export interface RedisTargetSpec {
  url?: string | null;
  clusterNodes?: { host: string; port: number }[];
}

const COMMAND_TIMEOUT_MS = 2000;
/** The longest wait between reconnection attempts (the store answers again ≤ 1 s after Redis). */
const RECONNECT_MAX_MS = 250;

const baseOptions: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: COMMAND_TIMEOUT_MS,
  connectTimeout: 2000,
  // reconnect attempts at most RECONNECT_MAX_MS apart: a restarted Redis is used again within it
  retryStrategy: (times) => Math.min(50 * 2 ** times, RECONNECT_MAX_MS),
  lazyConnect: true,
};

export function createRedis(target: RedisTargetSpec, connectionName = 'relayq'): RedisClient {
  if (target.clusterNodes && target.clusterNodes.length > 0) {
    return new Cluster(target.clusterNodes, {
      enableOfflineQueue: false,
      lazyConnect: true,
      scaleReads: 'master',
      clusterRetryStrategy: (times) => Math.min(100 * 2 ** times, 2 * RECONNECT_MAX_MS),
      redisOptions: { ...baseOptions, connectionName },
    });
  }
  const url = target.url ?? 'redis://127.0.0.1:6379';
  if (url.startsWith('unix://')) {
    return new Redis({ ...baseOptions, connectionName, path: url.slice('unix://'.length) });
  }
  return new Redis(url, { ...baseOptions, connectionName });
}

/** A second connection to the same Redis, for pub/sub. */
export function duplicateForSubscriber(redis: RedisClient): RedisClient {
  if (redis instanceof Cluster) {
    return redis.duplicate(undefined, { shardedSubscribers: true, enableOfflineQueue: true });
  }
  return redis.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    commandTimeout: undefined,
  });
}

/** Connects (with retries) and waits until the client is ready. */
export async function connectRedis(redis: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      if (redis.status === 'wait' || redis.status === 'end' || redis.status === 'close') {
        await redis.connect();
      } else {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('timed out waiting for Redis')), 1000);
          redis.once('ready', () => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      if ((redis.status as string) === 'ready') return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(
    `cannot connect to Redis: ${lastError instanceof Error ? lastError.message : 'timed out'}`,
  );
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}
