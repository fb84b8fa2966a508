/**
 * Entry point: config -> Redis (embedded or not) -> app -> listen -> shutdown.
 * On SIGTERM or SIGINT: readiness fails at once, no new connections are taken,
 * requests in flight finish (within RELAY_SHUTDOWN_GRACE_MS), WebSockets close
 * with 1001, Redis connections quit, the embedded redis-server stops, exit 0.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import { buildApp, type RelayApp } from './app';
import type { Config } from './config';
import { startEmbeddedRedis, type EmbeddedRedis } from './embeddedRedis';
import { issueToken } from './http/admin';
import { createApiServer } from './http/nodeServer';
import { sqsQuickStart, withEmbeddedSqsKey } from './sqs/quickStart';
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

/** First start of the embedded mode: a local account and a ready token, so a newcomer can send at once. */
async function welcome(
  relay: RelayApp,
  config: Readonly<Config>,
  port: number,
  logger: Logger,
): Promise<void> {
  const tokenFile = path.join(config.dataDir, 'local-token');
  if ((await relay.store.accounts.count()) === 0) {
    const plan = relay.plans.has('paid') ? 'paid' : config.defaultPlan;
    await relay.store.accounts.create('local', plan);
    const issued = await issueToken(relay.store.accounts, 'local', { name: 'quick start' });
    fs.writeFileSync(tokenFile, `${issued.token}\n`, { mode: 0o600 });
  }
  if (!fs.existsSync(tokenFile)) return;
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  const base = `http://localhost:${port}`;
  logger.info({ tokenFile }, 'quick-start token saved');
  process.stdout.write(
    `\nrelayq is running on ${base} with an embedded Redis in ${config.dataDir}\n` +
      `Local account "local"; its token is in ${tokenFile}:\n\n  export RELAY_TOKEN=${token}\n\n` +
      `Send a message:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{"body":{"hello":"world"}}' ${base}/v1/relay/channels/demo/messages\n` +
      `Pull it:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{}' ${base}/v1/relay/channels/demo/messages/pull\n\n`,
  );
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

export async function runServer(config: Readonly<Config>, logger: Logger): Promise<RunningServer> {
  let embedded: EmbeddedRedis | null = null;
  let url = config.redis.url;
  if (config.embeddedRedis) {
    embedded = await startEmbeddedRedis(config.redisServerBin, config.dataDir, logger);
    url = embedded.url;
  }
  const redis = createRedis({ url, clusterNodes: config.redis.clusterNodes });
  redis.on('error', (err) => logger.warn({ err: String(err) }, 'redis connection error'));
  await connectRedis(redis, 30_000);
  await warnAboutEviction(redis, logger);

  const relay = buildApp({ config: embedded ? withEmbeddedSqsKey(config) : config, redis, logger });
  await relay.start();

  const server = createApiServer(relay.app);
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

  if (embedded) await welcome(relay, config, port, logger);
  if (embedded) await sqsQuickStart(relay, relay.deps.config, port);

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
      if (embedded) await embedded.stop();
      logger.info('stopped');
    })();
    return shuttingDown;
  };

  return { relay, server, metricsServer, port, shutdown };
}
