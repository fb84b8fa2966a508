/**
 * Durability under kill -9: runs the real service (`relayq serve`, embedded
 * redis-server with appendfsync always), sends a load of messages from
 * concurrent producers while consumers pull and ack, kills -9 both the service
 * and its redis-server in the middle, restarts on the same data directory and
 * drains the channel (the benchmark first sends the rest of the messages to
 * the restarted service, so that all of them pass through). Every message
 * whose send answered 200 must come back (lost = 0); every message whose ack
 * answered 200 must not (acked_redelivered = 0).
 *
 *   npm run bench:durability                     # 100,000 messages
 *   npm run bench:durability -- 20000 32         # messages, concurrency
 *
 * The integration test test/integration/reliability/durability.test.ts runs the
 * same harness with a few thousand messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, isAlive } from '../src/embedded/process';

export interface DurabilityOptions {
  messages: number;
  concurrency: number;
  /** kill once this fraction of the messages has been sent with a 200 */
  killAt?: number;
  consumers?: number;
  /** after the restart, send the messages not sent before the kill (so all of them pass through) */
  finishAfterRestart?: boolean;
  log?: (line: string) => void;
}

export interface DurabilityReport {
  sentOk: number;
  sendFailed: number;
  ackedBeforeKill: number;
  /** acks whose outcome is unknown (the ack call failed or counted fewer): excluded from both checks */
  ackUnknown: number;
  pulledAfterRestart: number;
  /** ids whose send answered 200 and that were neither acked before the kill nor pulled after */
  lost: string[];
  /** ids whose ack answered 200 and that were delivered again after the restart */
  ackedRedelivered: string[];
  /** deliveries after the restart beyond the first of each id, plus bodies stored under two ids */
  duplicated: number;
  /** pulled ids that no send produced (neither a 200 nor an unanswered send) */
  phantom: number;
  seconds: { load: number; restart: number; drain: number };
}

const ADMIN_TOKEN = 'durability-admin-token-0123456789';
const CHANNEL = 'durable';

function mainJs(): string {
  const candidates = [
    path.resolve(__dirname, '..', 'dist', 'src', 'cli', 'main.js'),
    path.resolve(__dirname, '..', 'src', 'cli', 'main.js'),
  ];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('build first: npx tsc -p tsconfig.build.json (dist/src/cli/main.js)');
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Service {
  child: ChildProcess;
  base: string;
  token: string;
  exited: Promise<void>;
  output: () => string;
}

async function startService(dataDir: string): Promise<Service> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(REDIS_|RELAY_|PORT$|METRICS_PORT$|HOST$)/.test(k)) env[k] = v;
  }
  const port = await freePort();
  Object.assign(env, {
    PORT: String(port),
    METRICS_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    RELAY_DATA_DIR: dataDir,
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
  });
  const child = spawn(process.execPath, [mainJs(), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  child.stderr!.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const tokenFile = path.join(dataDir, 'local-token');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relayq exited at start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`relayq was not ready within 30 s:\n${output}`);
    }
    try {
      const ready = await request(`${base}/readyz`, 'GET', {});
      if (ready.status === 200 && fs.existsSync(tokenFile)) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  return { child, base, token, exited, output: () => output };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request over the harness's keep-alive agent (destroyed at the end, leaving no handle). */
function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString()),
          });
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

async function call(
  service: Service,
  route: string,
  body: unknown,
): Promise<{ status: number; result: Record<string, unknown> | null }> {
  const res = await request(
    `${service.base}/v1/relay/channels/${CHANNEL}/messages${route}`,
    'POST',
    { Authorization: `Bearer ${service.token}`, 'Content-Type': 'application/json' },
    JSON.stringify(body),
  );
  return {
    status: res.status,
    result: (res.json as { result: Record<string, unknown> | null }).result,
  };
}

interface Pulled {
  id: string;
  lease_id: string;
  body: { i: number };
}

export async function runDurability(options: DurabilityOptions): Promise<DurabilityReport> {
  const log = options.log ?? (() => undefined);
  const killAt = Math.floor(options.messages * (options.killAt ?? 0.5));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-dur-'));
  const sentOk = new Map<string, number>(); // id -> i
  const unanswered = new Set<number>(); // sends whose outcome is unknown
  const acked = new Set<string>();
  const ackUnknown = new Set<string>();
  let service: Service | null = await startService(dataDir);
  const first = service;
  let killed = false;
  let next = 0;

  const kill = async () => {
    if (killed) return;
    killed = true;
    const redisPid = Number(fs.readFileSync(path.join(dataDir, 'redis.pid'), 'utf8').trim());
    process.kill(redisPid, 'SIGKILL');
    first.child.kill('SIGKILL');
    await first.exited;
    for (let i = 0; i < 100 && isAlive(redisPid); i++) await sleep(50);
    log(`killed -9 relayq (pid ${first.child.pid}) and redis-server (pid ${redisPid})`);
  };

  const loadStarted = Date.now();
  const producer = (target: Service, killing: boolean) => async () => {
    while (!(killing && killed) && next < options.messages) {
      const i = next++;
      try {
        const res = await call(target, '', { body: { i } });
        if (res.status === 200) {
          sentOk.set(String(res.result!.id), i);
          if (killing && sentOk.size >= killAt) await kill();
        } else unanswered.add(i);
      } catch {
        unanswered.add(i);
      }
    }
  };
  const consumer = async () => {
    while (!killed) {
      let leased: Pulled[] = [];
      try {
        const res = await call(first, '/pull', { batch_size: 10, visibility_timeout_ms: 5000 });
        if (res.status !== 200) continue;
        leased = res.result!.messages as Pulled[];
        if (leased.length === 0) {
          await sleep(10);
          continue;
        }
        const ack = await call(first, '/ack', { lease_ids: leased.map((m) => m.lease_id) });
        if (ack.status === 200 && ack.result!.acked_count === leased.length) {
          for (const m of leased) acked.add(m.id);
        } else for (const m of leased) ackUnknown.add(m.id);
      } catch {
        for (const m of leased) ackUnknown.add(m.id);
      }
    }
  };
  await Promise.all([
    ...Array.from({ length: options.concurrency }, producer(first, true)),
    ...Array.from({ length: options.consumers ?? 2 }, consumer),
  ]);
  await kill();
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  log(
    `load: ${sentOk.size} sends answered 200, ${unanswered.size} unanswered, ${acked.size} acked, in ${loadSeconds.toFixed(1)} s`,
  );

  const restartStarted = Date.now();
  service = await startService(dataDir);
  const restartSeconds = (Date.now() - restartStarted) / 1000;
  log(`restarted in ${restartSeconds.toFixed(1)} s`);
  if (options.finishAfterRestart && next < options.messages) {
    const before = sentOk.size;
    await Promise.all(Array.from({ length: options.concurrency }, producer(service, false)));
    log(`after the restart: ${sentOk.size - before} more sends answered 200`);
  }

  // Drain: long leases so nothing is redelivered while draining; leases from
  // before the kill (5 s) come back by themselves.
  const drainStarted = Date.now();
  const deliveries = new Map<string, number>();
  const bodies = new Map<number, Set<string>>();
  const expected = [...sentOk.keys()].filter((id) => !acked.has(id) && !ackUnknown.has(id));
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      const res = await call(service, '/pull', { batch_size: 100, visibility_timeout_ms: 600_000 });
      if (res.status !== 200) throw new Error(`pull after restart answered ${res.status}`);
      const messages = res.result!.messages as Pulled[];
      for (const m of messages) {
        deliveries.set(m.id, (deliveries.get(m.id) ?? 0) + 1);
        const ids = bodies.get(m.body.i) ?? new Set<string>();
        ids.add(m.id);
        bodies.set(m.body.i, ids);
      }
      if (messages.length > 0) {
        const ack = await call(service, '/ack', { lease_ids: messages.map((m) => m.lease_id) });
        if (ack.status !== 200) throw new Error(`ack after restart answered ${ack.status}`);
      }
      const backlog = res.result!.message_backlog_count as number;
      const allSeen = expected.every((id) => deliveries.has(id));
      if (messages.length === 0 && ((allSeen && backlog === 0) || Date.now() > deadline)) break;
      if (messages.length === 0) await sleep(200);
    }
  } finally {
    service.child.kill('SIGTERM');
    const stopped = await Promise.race([service.exited.then(() => true), sleep(20_000)]);
    if (!stopped) service.child.kill('SIGKILL');
    await service.exited;
    agent.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;

  let duplicated = 0;
  for (const n of deliveries.values()) duplicated += n - 1;
  for (const ids of bodies.values()) duplicated += ids.size - 1;
  const indexOf = new Map<string, number>();
  for (const [i, ids] of bodies) for (const id of ids) indexOf.set(id, i);
  let phantom = 0;
  for (const [id] of deliveries) {
    if (sentOk.has(id)) continue;
    const i = indexOf.get(id);
    if (i === undefined || !unanswered.has(i)) phantom++;
  }
  return {
    sentOk: sentOk.size,
    sendFailed: unanswered.size,
    ackedBeforeKill: acked.size,
    ackUnknown: ackUnknown.size,
    pulledAfterRestart: deliveries.size,
    lost: expected.filter((id) => !deliveries.has(id)),
    ackedRedelivered: [...acked].filter((id) => deliveries.has(id)),
    duplicated,
    phantom,
    seconds: { load: loadSeconds, restart: restartSeconds, drain: drainSeconds },
  };
}

if (require.main === module) {
  const messages = Number(process.argv[2] ?? 100_000);
  const concurrency = Number(process.argv[3] ?? 16);
  runDurability({
    messages,
    concurrency,
    finishAfterRestart: true,
    log: (line) => console.log(line),
  })
    .then((report) => {
      const { lost, ackedRedelivered, ...rest } = report;
      console.log(
        JSON.stringify(
          { ...rest, lost: lost.length, acked_redelivered: ackedRedelivered.length },
          null,
          2,
        ),
      );
      process.exit(lost.length === 0 && ackedRedelivered.length === 0 ? 0 : 1);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
