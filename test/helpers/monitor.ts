/** What a pod sends to Redis, counted on the server (MONITOR), for the one-call tests. */
import type Redis from 'ioredis';
import { eventually, type TestApp } from './app';
import type { SingleTestRedis } from './redis';

/** The commands the pod's connection sent while run() ran, lower case, in order. */
export async function podCommands(
  redis: SingleTestRedis,
  app: TestApp,
  run: () => Promise<unknown>,
): Promise<string[]> {
  const addr = /addr=(\S+)/.exec(String(await app.redis.call('CLIENT', 'INFO')))![1];
  const monitor: Redis = await redis.client.monitor();
  const seen: string[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source === addr) seen.push(String(args[0]).toLowerCase());
  });
  try {
    await run();
    // a marker from the same connection: everything before it has been seen
    await app.redis.echo('end-of-request');
    await eventually(() => seen.includes('echo'));
  } finally {
    monitor.disconnect();
  }
  return seen.slice(0, seen.indexOf('echo'));
}
