/**
 * Entry point: config -> Redis (embedded or not) -> app -> listen -> shutdown.
 * The embedded mode first takes its data dir's lock (src/embedded/lock.ts): a data
 * dir that a live relayq holds is left untouched.
 * On SIGTERM or SIGINT: readiness fails at once, no new connections are taken,
 * requests in flight finish (within RELAY_SHUTDOWN_GRACE_MS), WebSockets close
 * with 1001, Redis connections quit, the embedded redis-server stops, exit 0.
 */
import http from 'node:http';
import type { Logger } from 'pino';
import { buildApp, type RelayApp } from './app';
import type { Config } from './config';
import { lockDataDir, type DataDirLock } from './embedded/lock';
import { startEmbeddedRedis, type EmbeddedRedis } from './embedded/redis';
import { createApiServer } from './web/nodeServer';
import { withEmbeddedSqsKey } from './embedded/sqsQuickStart';
import { quickStart } from './embedded/quickStart';
import { connectRedis, createRedis, type RedisClient } from './store/redis';
import { attachWebSockets, type WebSocketHub } from './ws/server';

export interface RunningServer {
  relay: RelayApp;
  server: http.Server;
  metricsServer: http.Server;
  port: number;
  shutdown(): Promise<void>;
}

async function warnAboutEviction(redis: RedisClient, logger: Logger): Promise<void> {
  try {
    const nodes =
      'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
    for (const node of nodes) {
      const [, policy] = (await node.config('GET', 'maxmemory-policy')) as string[];
      if (policy !== 'noeviction') {
        logger.error(
          { policy },
          `Redis maxmemory-policy is "${policy}": Redis may evict queue keys and lose messages. Set maxmemory-policy noeviction.`,
        );
      }
    }
  } catch {
    // CONFIG may be disabled on managed Redis; nothing to check then
  }
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

export interface ServeOptions {
  /** print the quick-start credentials even when they were printed before */
  printCredentials?: boolean;
}

/** The embedded mode's own parts: its data dir lock and redis-server. */
interface Embedded {
  lock: DataDirLock;
  redis: EmbeddedRedis;
}

export async function runServer(
  config: Readonly<Config>,
  logger: Logger,
  options: ServeOptions = {},
): Promise<RunningServer> {
  if (!config.embeddedRedis) return startService(config, logger, options, null);
  // before anything else: a data dir that a live relayq holds is left untouched (DataDirInUseError)
  const lock = lockDataDir(config.dataDir);
  let redis: EmbeddedRedis | null = null;
  try {
    redis = await startEmbeddedRedis(config.redisServerBin, config.dataDir, logger);
    return await startService(config, logger, options, { lock, redis });
  } catch (err) {
    // a failed start leaves no redis-server behind (a child outlives its parent's exit)
    await redis?.stop();
    lock.release();
    throw err;
  }
}

async function startService(
  config: Readonly<Config>,
  logger: Logger,
  options: ServeOptions,
  embedded: Embedded | null,
): Promise<RunningServer> {
  const url = embedded ? embedded.redis.url : config.redis.url;
  const redis = createRedis({ url, clusterNodes: config.redis.clusterNodes });
  redis.on('error', (err) => logger.warn({ err: String(err) }, 'redis connection error'));
  await connectRedis(redis, 30_000);
  await warnAboutEviction(redis, logger);

  const relay = buildApp({ config: embedded ? withEmbeddedSqsKey(config) : config, redis, logger });
  await relay.start();

  const server = createApiServer(
    relay.app,
    { bodyTimeoutMs: config.bodyTimeoutMs },
    { shapes: relay.refusalShapes, log: logger },
  );
  const ws: WebSocketHub = attachWebSockets(server, relay);
  const port = await listen(server, config.port, config.host);

  const metricsServer = http.createServer(async (req, res) => {
    if (req.url === '/metrics' && req.method === 'GET') {
      res.setHeader('Content-Type', relay.metrics.registry.contentType);
      res.end(await relay.metrics.registry.metrics());
    } else {
      res.statusCode = 404;
      res.end('not found\n');
    }
  });
  await listen(metricsServer, config.metricsPort, config.host);
  logger.info({ port, metricsPort: config.metricsPort, host: config.host }, 'relayq listening');

  if (embedded) {
    embedded.lock.setPort(port);
    await quickStart(relay, port, logger, options.printCredentials ?? false);
  }

  let shuttingDown: Promise<void> | null = null;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      logger.info('shutting down');
      relay.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      ws.closeAll(1001, 'server shutting down');
      const grace = new Promise<void>((resolve) =>
        setTimeout(resolve, config.shutdownGraceMs).unref(),
      );
      await Promise.race([closed, grace]);
      server.closeAllConnections();
      metricsServer.close();
      await relay.close();
      await redis.quit().catch(() => redis.disconnect());
      if (embedded) {
        await embedded.redis.stop();
        embedded.lock.release();
      }
      logger.info('stopped');
    })();
    return shuttingDown;
  };

  return { relay, server, metricsServer, port, shutdown };
}
