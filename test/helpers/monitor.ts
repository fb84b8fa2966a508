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

/**
 * The due index repair's walk (src/store/dueRepair.ts): a DBSIZE and a SCAN step each second
 * on every pod, background work like the sweeper's, not a request's.
 */
const BACKGROUND = new Set(['dbsize', 'scan']);

/**
 * The scripts of the pod's background work: the sweeper, the gauges, the due index, the
 * coalesced announcements, the refresh of held long-poll and WebSocket places every 10 s
 * (not a request's calls: the issue counts them apart).
 */
const BACKGROUND_SCRIPTS = [
  'holder_refresh',
  'sweep_channel',
  'announce_channel',
  'due_channels',
  'claim_due_accounts',
  'release_due_account',
  'gauges_read',
  'gauges_fold',
  'account_gauges',
];

/** The scripts the pod's client defined, by command name (`rq_<script>`), with their SHA1s. */
const definedScripts = (app: TestApp) =>
  (app.redis as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet;

/** The SHA1s of the pod's background scripts, as its client defined them. */
function backgroundShas(app: TestApp): Set<string> {
  const defined = definedScripts(app);
  return new Set(BACKGROUND_SCRIPTS.flatMap((name) => defined[`rq_${name}`]?.sha ?? []));
}

/** A MONITOR line's arguments: each quoted, with backslash escapes. */
const ARG = /"((?:[^"\\]|\\.)*)"/g;

/**
 * The commands the pod's connection sent while run() ran, each as its arguments (the
 * command's name lower case), in order, without the due index repair's background steps.
 */
export async function podCommandArgs(
  redis: SingleTestRedis,
  app: TestApp,
  run: () => Promise<unknown>,
): Promise<string[][]> {
  const addr = /addr=(\S+)/.exec(String(await app.redis.call('CLIENT', 'INFO')))![1];
  const { host, port } = redis.client.options;
  const socket = net.connect(port!, host ?? '127.0.0.1');
  const seen: string[][] = [];
  const background = backgroundShas(app);
  const lowerDue = definedScripts(app).rq_lower_due_account?.sha;
  let afterTimerRead = false;
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
      if (!m || m[1] !== addr || BACKGROUND.has(m[2].toLowerCase())) continue;
      const args = [...line.slice(m.index + m[0].length - m[2].length - 2).matchAll(ARG)].map(
        (a) => a[1],
      );
      args[0] = args[0].toLowerCase();
      // a background script, or the due index repair's or the sweeper's look at an account's
      // earliest timer (ZRANGE <timers> 0 0) and the lower_due_account that may follow it
      if (args[0] === 'evalsha' && background.has(args[1])) continue;
      if (args[0] === 'zrange' && args[1]?.endsWith(':timers')) {
        afterTimerRead = true;
        continue;
      }
      if (afterTimerRead && args[0] === 'evalsha' && args[1] === lowerDue) {
        afterTimerRead = false;
        continue;
      }
      afterTimerRead = false;
      seen.push(args);
    }
  });
  socket.on('error', () => undefined);
  try {
    socket.write('MONITOR\r\n');
    await eventually(() => monitoring);
    await run();
    // a marker from the same connection: everything before it has been seen
    await app.redis.echo('end-of-request');
    await eventually(() => seen.some((c) => c[0] === 'echo'));
  } finally {
    socket.destroy();
  }
  return seen.slice(
    0,
    seen.findIndex((c) => c[0] === 'echo'),
  );
}

/**
 * The commands the pod's connection sent while run() ran, lower case, in order, without the
 * due index repair's background steps.
 */
export async function podCommands(
  redis: SingleTestRedis,
  app: TestApp,
  run: () => Promise<unknown>,
): Promise<string[]> {
  return (await podCommandArgs(redis, app, run)).map((c) => c[0]);
}
