/** Helpers of the operations tests: an in-process runServer() with captured logs, and metrics parsing. */
import type { Logger } from 'pino';
import request from 'supertest';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { runServer, type RunningServer } from '../../../src/server';
import { ADMIN_TOKEN, type TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';

export interface ServedApp {
  running: RunningServer;
  /** as a TestApp, for accountWithToken() */
  app: TestApp;
  publicUrl: string;
  metricsUrl: string;
  /** every log line written so far, parsed */
  logs: Record<string, unknown>[];
  rawLogs: string[];
  shutdown(): Promise<void>;
}

/** The real server (public port and metrics port, both on 127.0.0.1 and port 0) over a test Redis. */
export async function serve(
  redis: TestRedis,
  env: Record<string, string> = {},
): Promise<ServedApp> {
  const rawLogs: string[] = [];
  const logger: Logger = createLogger('info', { write: (line: string) => void rawLogs.push(line) });
  const config = loadConfig({
    ...redis.env,
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    RELAY_SWEEP_INTERVAL_MS: '50',
    RELAY_SHUTDOWN_GRACE_MS: '2000',
    ...env,
  });
  const running = await runServer(config, logger);
  const metricsPort = (running.metricsServer.address() as { port: number }).port;
  const publicUrl = `http://127.0.0.1:${running.port}`;
  return {
    running,
    app: {
      relay: running.relay,
      redis: null as never,
      http: request(publicUrl),
      close: () => running.shutdown(),
    },
    publicUrl,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    rawLogs,
    get logs() {
      return rawLogs.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    shutdown: () => running.shutdown(),
  };
}

/** The value of one sample in Prometheus text, or undefined when absent. */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      got[pair[1]] = pair[2];
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}
