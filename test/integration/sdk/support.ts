/** Helpers of the SDK tests: a relay that can be stopped and started again on one port. */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { startApp, type TestApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { attachWebSockets } from '../../../src/ws/server';

export interface RestartableRelay {
  port: number;
  baseUrl: string;
  /** Closes the server (sockets dropped with 1001) and its app. */
  stop(): Promise<void>;
  /** Starts a new app on the same port. */
  start(): Promise<void>;
  app(): TestApp;
}

export async function restartableRelay(redis: TestRedis): Promise<RestartableRelay> {
  let port = 0;
  let current: { app: TestApp; server: http.Server; close: () => Promise<void> } | null = null;
  const start = async () => {
    const app = await startApp(redis);
    const server = http.createServer(app.relay.app);
    const ws = attachWebSockets(server, app.relay);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    port = (server.address() as { port: number }).port;
    current = {
      app,
      server,
      close: async () => {
        ws.closeAll(1001, 'going away');
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await app.close();
      },
    };
  };
  await start();
  return {
    get port() {
      return port;
    },
    get baseUrl() {
      return `http://127.0.0.1:${port}`;
    },
    start,
    async stop() {
      const c = current;
      current = null;
      await c?.close();
    },
    app: () => {
      if (!current) throw new Error('the relay is stopped');
      return current.app;
    },
  };
}

/** A local port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const ROOT = path.resolve(__dirname, '../../..');
/** The server package's relayq (every command) and the client package's own bin. */
export const CLI = path.join(ROOT, 'dist/src/cli/main.js');
export const CLIENT_CLI = path.join(ROOT, 'packages/client/dist/cjs/cli/main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI with only PATH and `env` in its environment, `input` on its stdin. */
export function runCli(
  cli: string,
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** JSON lines as values. */
export const jsonLines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
