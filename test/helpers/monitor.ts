/**
 * What a pod sends to Redis, counted on the server (MONITOR), for the one-call tests.
 * MONITOR is read from a plain socket: ioredis's monitor() can take a monitored line that
 * arrives with its "+OK" for a reply ("Command queue state error").
 */
import net from 'node:net';
import { eventually, type TestApp } from './app';
import type { SingleTestRedis } from './redis';

/** A MONITOR line: `+<time> [<db> <client address>] "<command>" ...` */
const LINE = /^\+\d+\.\d+ \[\d+ (\S+)\] "([^"]+)"/;

/** The commands the pod's connection sent while run() ran, lower case, in order. */
export async function podCommands(
  redis: SingleTestRedis,
  app: TestApp,
  run: () => Promise<unknown>,
): Promise<string[]> {
  const addr = /addr=(\S+)/.exec(String(await app.redis.call('CLIENT', 'INFO')))![1];
  const { host, port } = redis.client.options;
  const socket = net.connect(port!, host ?? '127.0.0.1');
  const seen: string[] = [];
  let monitoring = false;
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\r\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === '+OK') monitoring = true;
      const m = LINE.exec(line);
      if (m && m[1] === addr) seen.push(m[2].toLowerCase());
    }
  });
  socket.on('error', () => undefined);
  try {
    socket.write('MONITOR\r\n');
    await eventually(() => monitoring);
    await run();
    // a marker from the same connection: everything before it has been seen
    await app.redis.echo('end-of-request');
    await eventually(() => seen.includes('echo'));
  } finally {
    socket.destroy();
  }
  return seen.slice(0, seen.indexOf('echo'));
}
