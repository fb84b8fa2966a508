/** Builds relay app instances over a test Redis, with an account and token ready. */
import http from 'node:http';
import pino, { type Logger } from 'pino';
import request from 'supertest';
import { buildApp, type RelayApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createRedis, type RedisClient } from '../../src/store/redis';
import { attachWebSockets, type WebSocketHub } from '../../src/ws/server';
import { withResponseCheck } from './openapiCheck';
import type { TestRedis } from './redis';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  relay: RelayApp;
  redis: RedisClient;
  http: ReturnType<typeof request>;
  close(): Promise<void>;
}

export async function startApp(
  redis: TestRedis,
  env: Record<string, string> = {},
  /** the pod's logger (default: silent), for tests that read the log */
  logger: pino.Logger = pino({ level: 'silent' }),
): Promise<TestApp> {
  const config = loadConfig({
    ...redis.env,
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    RELAY_SWEEP_INTERVAL_MS: '50',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const client = createRedis(config.redis);
  const relay = buildApp({ config, redis: client, logger });
  // every response of a test app is checked against the OpenAPI document
  relay.app = withResponseCheck(relay.app);
  await relay.start();
  return {
    relay,
    redis: client,
    http: request(relay.app),
    async close() {
      await relay.close();
      client.disconnect();
    },
  };
}

export interface ListeningApp extends TestApp {
  server: http.Server;
  ws: WebSocketHub;
  port: number;
  baseUrl: string;
}

/** An app on a real HTTP server on port 0, with WebSockets attached. */
export async function startListeningApp(
  redis: TestRedis,
  env: Record<string, string> = {},
  logger?: Logger,
): Promise<ListeningApp> {
  const app = await startApp(redis, env, logger);
  const server = http.createServer(app.relay.app);
  const ws = attachWebSockets(server, app.relay);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    ...app,
    server,
    ws,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      ws.closeAll(1001, 'test over');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** Creates an account (plan default 'free') and a token for it; returns the bearer header value. */
export async function accountWithToken(
  app: TestApp,
  accountId: string,
  options: { plan?: string; channels?: string[]; expires_in_seconds?: number } = {},
): Promise<{ token: string; auth: string; tokenId: string }> {
  if (!(await app.relay.store.accounts.get(accountId))) {
    await app.relay.store.accounts.create(accountId, options.plan ?? 'free');
  }
  const issued = await app.relay.relay.tokens.issue(accountId, {
    channels: options.channels,
    expires_in_seconds: options.expires_in_seconds,
  });
  return { token: issued.token, auth: `Bearer ${issued.token}`, tokenId: issued.id };
}

/** The account's stored bytes, through the admin API. */
export async function storageBytes(app: TestApp, account: string): Promise<number> {
  const res = await app.http
    .get(`/v1/admin/accounts/${account}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return res.body.result.usage.storage_bytes;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until check() is true or the timeout passes. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5000,
  stepMs = 25,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(stepMs);
  }
}

/** A channel's config as GET shows it before anything is set (free plan: 3-day retention). */
export const DEFAULT_CHANNEL_CONFIG = {
  dead_letter_channel: null,
  max_attempts: 3,
  dedup_window_seconds: 300,
  paused: false,
  visibility_timeout_ms: 30000,
  delay_seconds: 0,
  retention_seconds: 3 * 86400,
  receive_wait_seconds: 0,
  history_seconds: 0,
  group_order: 'strict',
  fifo: false,
} as const;
