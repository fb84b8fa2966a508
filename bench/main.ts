/**
 * `npm run bench [-- --quick] [-- --runs N]`: relayq against the raw Lua ceiling,
 * BullMQ, RSMQ and NATS JetStream on this machine (issue 9). Starts its own
 * redis-server (AOF fsync always, and a second one with everysec), nats-server and
 * relayq processes on free loopback ports; writes bench/results/<date>.json, an SVG
 * chart and (full runs) the results section of BENCHMARKS.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { JsonClient } from './http';
import {
  ADMIN_TOKEN,
  NATS_BIN,
  natsAvailable,
  startNats,
  startRedis,
  startFloor,
  startRelay,
  stopAll,
  waitReady,
  type Proc,
} from './procs';
import { renderReport, writeReport, type BenchResults, type RunResult } from './report';
import { round } from './stats';
import {
  bullmq,
  floor,
  FLOOR,
  floorAuth,
  natsJetStream,
  RawLua,
  rawLua,
  relayq,
  rsmq,
  type QueueSystem,
} from './systems';
import { runEntrances } from './entrances';
import { PUSH_DEFAULTS, PUSH_QUICK, runPush } from './push';
import { runFilters } from './filters';
import { groupsSettings, runGroups } from './groups';
import { runRoutes } from './routes';
import { historySettings, runHistory, type HistoryBenchSettings } from './history';
import { runScale } from './scale';
import {
  fill,
  probe,
  usedMemory,
  w1,
  w2,
  w2Pair,
  w3,
  w4,
  w4Pair,
  writeProbe,
  type RelayTarget,
  type W2Result,
} from './workloads';

interface Settings {
  quick: boolean;
  runs: number;
  n: number;
  w2Ms: number;
  w3Ms: number;
  w3Rate: number;
  w4Subs: number;
  /** sends to the one channel (per server): its p99 to the last subscriber is over these */
  w4Rounds: number;
  w4ManyRounds: number;
  w5Small: number;
  w5Big: number;
  w5Channels: number;
  probeSamples: number;
  timeoutMs: number;
  profileDir: string | null;
  only: string[] | null;
  systems: string[] | null;
  report: string | null;
  history: HistoryBenchSettings;
}

function parseArgs(argv: string[]): Settings {
  const quick = argv.includes('--quick');
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const s: Settings = quick
    ? {
        quick,
        runs: 1,
        n: 5_000,
        w2Ms: 2_000,
        w3Ms: 2_000,
        w3Rate: 5_000,
        w4Subs: 200,
        w4Rounds: 20,
        w4ManyRounds: 2,
        w5Small: 1_000,
        w5Big: 20_000,
        w5Channels: 1_000,
        probeSamples: 50,
        timeoutMs: 30_000,
        profileDir: null,
        only: null,
        systems: null,
        report: null,
        history: historySettings(true, argv),
      }
    : {
        quick,
        runs: 3,
        n: 100_000,
        w2Ms: 8_000,
        w3Ms: 8_000,
        w3Rate: 5_000,
        w4Subs: 1_000,
        w4Rounds: 100,
        w4ManyRounds: 3,
        w5Small: 1_000,
        w5Big: 1_000_000,
        w5Channels: 10_000,
        probeSamples: 200,
        timeoutMs: 120_000,
        profileDir: null,
        only: null,
        systems: null,
        report: null,
        history: historySettings(false, argv),
      };
  if (value('--runs')) s.runs = Number(value('--runs'));
  if (value('--n')) s.n = Number(value('--n'));
  if (value('--big')) s.w5Big = Number(value('--big'));
  if (value('--profile')) s.profileDir = path.resolve(value('--profile')!);
  if (value('--only')) s.only = value('--only')!.split(',');
  if (value('--systems')) s.systems = value('--systems')!.split(',');
  if (value('--report')) s.report = path.resolve(value('--report')!);
  return s;
}

function version(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
  } catch {
    return 'not installed';
  }
}

async function relayAccount(relay: Proc, account: string): Promise<string> {
  const admin = new JsonClient(relay.port, `Bearer ${ADMIN_TOKEN}`, 2);
  await admin.post('/v1/admin/accounts', JSON.stringify({ id: account, plan: 'paid' }));
  const r = await admin.post<{ result: { token: string } }>(
    `/v1/admin/accounts/${account}/tokens`,
    '{}',
  );
  admin.close();
  return `Bearer ${r.result.token}`;
}

const log = (...a: unknown[]) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

type Maker = [string, (phase: string) => Promise<QueueSystem> | QueueSystem];

async function oneRun(
  run: number,
  s: Settings,
  env: {
    redis: Proc;
    redisEs: Proc;
    relay: Proc;
    relayEs: Proc;
    floor: Proc;
    floorEs: Proc;
    nats: Proc | null;
  },
): Promise<RunResult> {
  const tag = `r${run}${Date.now().toString(36)}`;
  const redis = new Redis(env.redis.port, '127.0.0.1');
  const want = (w: string) => s.only === null || s.only.includes(w);
  const chosen = ([name]: Maker) =>
    !s.systems || s.systems.some((x) => name.toLowerCase().includes(x.toLowerCase()));
  const result: RunResult = { w1: {}, w2: {}, w2_everysec: {}, w3: {}, w4: {}, w5: {} };

  const relayAcct = `bench-${tag}`;
  const relayAuth = await relayAccount(env.relay, relayAcct);
  // the raw Lua ceiling's and the floor's account: they skip authentication
  const ceilAcct = `ceil-${tag}`;
  await relayAccount(env.relay, ceilAcct);
  const target: RelayTarget = { port: env.relay.port, auth: relayAuth, account: relayAcct };

  const peers: Maker[] = [
    ['BullMQ', (ph) => bullmq(env.redis.port, `bench-${tag}-${ph}`)],
    ['RSMQ', (ph) => rsmq(env.redis.port, `bench${tag}${ph}`)],
  ];
  if (env.nats) {
    const port = env.nats.port;
    peers.push(['NATS JetStream', (ph) => natsJetStream(port, `B${tag}${ph}`)]);
  }
  const relayMakers: Maker[] = [
    ['raw Lua ceiling', (ph) => rawLua(env.redis.port, ceilAcct, `w${ph}`)],
    ['relayq', (ph) => relayq(env.relay.port, relayAuth, `w${ph}`)],
  ];

  if (want('w1')) {
    for (const [name, make] of [...relayMakers, ...peers].filter(chosen)) {
      log(`run ${run} W1 ${name} (n=${s.n})`);
      const sys = await make('1');
      try {
        result.w1[name] = await w1(sys, s.n, sys.redisBacked ? redis : null, s.timeoutMs);
        log('   ', JSON.stringify(result.w1[name]));
      } finally {
        await sys.close();
      }
    }
  }

  if (want('w2')) {
    const w2All = async (label: string, makers: Maker[], into: Record<string, W2Result>) => {
      const [floorMaker, relayMaker, ...others] = makers;
      if (chosen(floorMaker) && chosen(relayMaker)) {
        // the target is their ratio: measured in turns, so that both see the same machine
        log(`run ${run} W2 ${label} ${FLOOR} and relayq, in turns`);
        const a = await floorMaker[1]('2');
        const b = await relayMaker[1]('2');
        try {
          [into[FLOOR], into.relayq] = await w2Pair(a, b, s.w2Ms);
          log('   ', JSON.stringify({ [FLOOR]: into[FLOOR], relayq: into.relayq }));
        } finally {
          await a.close();
          await b.close();
        }
      } else others.unshift(floorMaker, relayMaker);
      for (const [name, make] of others.filter(chosen)) {
        log(`run ${run} W2 ${label} ${name}`);
        const sys = await make('2');
        try {
          into[name] = await w2(sys, s.w2Ms);
          log('   ', JSON.stringify(into[name]));
        } finally {
          await sys.close();
        }
      }
    };
    // the floor and relayq first, in that order (w2All measures them in turns)
    await w2All(
      'always',
      [
        [FLOOR, (ph) => floor(env.floor.port, ceilAcct, `f${ph}`)],
        relayMakers[1],
        relayMakers[0],
        ...peers,
      ],
      result.w2,
    );
    const es = new Redis(env.redisEs.port, '127.0.0.1');
    const samples = s.quick ? 50 : 200;
    result.fsync = {
      always: await writeProbe(redis, samples),
      everysec: await writeProbe(es, samples),
    };
    es.disconnect();
    log(`run ${run} fsync probe`, JSON.stringify(result.fsync));
    // the cost of fsync: the same single sends against a Redis with appendfsync everysec
    const esAuth = await relayAccount(env.relayEs, relayAcct);
    await relayAccount(env.relayEs, ceilAcct);
    const esPort = env.redisEs.port;
    await w2All(
      'everysec',
      [
        [FLOOR, () => floor(env.floorEs.port, ceilAcct, 'f2es')],
        ['relayq', () => relayq(env.relayEs.port, esAuth, 'w2es')],
        ['raw Lua ceiling', () => rawLua(esPort, ceilAcct, 'w2es')],
        ['BullMQ', () => bullmq(esPort, `bench-${tag}-es`)],
        ['RSMQ', () => rsmq(esPort, `bench${tag}es`)],
      ],
      result.w2_everysec,
    );
  }

  if (want('w3')) {
    for (const mode of ['poll', 'ws'] as const) {
      log(`run ${run} W3 relayq ${mode}`);
      result.w3[`relayq ${mode === 'poll' ? 'long poll' : 'WebSocket-triggered'}`] = await w3(
        target,
        `w3${mode}`,
        mode,
        s.w3Rate,
        s.w3Ms,
      );
      log('   ', JSON.stringify(result.w3));
    }
  }

  if (want('w4')) {
    log(`run ${run} W4 one channel x ${s.w4Subs} subscribers, relayq and a bare ws broadcast`);
    const bare: RelayTarget = {
      port: env.floor.port,
      auth: floorAuth(ceilAcct),
      account: ceilAcct,
    };
    [result.w4.one_channel, result.w4.bare_ws] = await w4Pair(
      target,
      bare,
      'w4one',
      s.w4Subs,
      s.w4Rounds,
    );
    log('   ', JSON.stringify(result.w4));
    log(`run ${run} W4 ${s.w4Subs} channels x 1 subscriber`);
    result.w4.many_channels = await w4(target, 'w4many', s.w4Subs, s.w4ManyRounds);
    log('   ', JSON.stringify(result.w4.many_channels));
  }

  if (want('w5')) {
    const lua = new RawLua(env.redis.port);
    try {
      log(`run ${run} W5 backlog ${s.w5Small}`);
      await fill(lua, relayAcct, 'w5', s.w5Small);
      const small = await probe(target, 'w5', s.probeSamples);
      log(`run ${run} W5 backlog ${s.w5Big}`);
      const before = await usedMemory(redis);
      await fill(lua, relayAcct, 'w5', s.w5Big - s.w5Small);
      const bytes = round(((await usedMemory(redis)) - before) / (s.w5Big - s.w5Small), 0);
      const big = await probe(target, 'w5', s.probeSamples);
      const http = new JsonClient(env.relay.port, relayAuth, 2);
      await http.request('DELETE', '/v1/relay/channels/w5', undefined, 120_000);
      log(`run ${run} W5 ${s.w5Channels} channels`);
      let next = 0;
      const { pool } = await import('./stats');
      await pool(8, async () => {
        if (next >= s.w5Channels) return false;
        await fill(lua, relayAcct, `w5c-${next++}`, 1);
        return true;
      });
      const many = await probe(target, 'w5c-0', s.probeSamples);
      http.close();
      result.w5 = {
        backlog_small: s.w5Small,
        backlog_big: s.w5Big,
        channels: s.w5Channels,
        small,
        big,
        many_channels: many,
        bytes_per_msg: bytes,
      };
      log('   ', JSON.stringify(result.w5));
    } finally {
      await lua.close();
    }
  }
  if (want('routes')) {
    log(`run ${run} routes: a send with 10 and 50 routes against a plain send`);
    result.routes = await runRoutes(target, s.quick ? 100 : 500);
    log('   ', JSON.stringify(result.routes));
  }
  if (want('push')) {
    log(
      `run ${run} push: first attempt, push vs pull+ack, every third answer a 500 (own relayq and Redis)`,
    );
    result.push = await runPush(s.quick ? PUSH_QUICK : PUSH_DEFAULTS);
    log('   ', JSON.stringify(result.push));
  }
  if (want('entrances')) {
    log(`run ${run} entrances: relay send, webhook URL, SQS SendMessage (own relayq and Redis)`);
    result.entrances = await runEntrances(s.quick);
    log('   ', JSON.stringify(result.entrances));
  }
  if (want('groups')) {
    log(`run ${run} message groups and SQS FIFO (own relayq pods and Redis)`);
    result.groups = await runGroups(groupsSettings(process.argv.slice(2)));
    log('   ', JSON.stringify(result.groups));
  }
  if (want('history')) {
    log(`run ${run} history: ${s.history.records} records (own relayq and Redis)`);
    result.history = await runHistory(s.history);
    log('   ', JSON.stringify(result.history));
  }
  if (want('filters')) {
    log(`run ${run} filters (in process)`);
    result.filters = runFilters(s.quick);
    log('   ', JSON.stringify(result.filters));
  }
  redis.disconnect();
  return result;
}

async function main(): Promise<void> {
  const s = parseArgs(process.argv.slice(2));
  if (s.report) {
    // re-renders a results file with today's report code (to stdout)
    const res = JSON.parse(fs.readFileSync(s.report, 'utf8')) as BenchResults;
    console.log(renderReport(res, path.relative(process.cwd(), s.report)));
    return;
  }
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  log(`starting: ${command}`);
  if (s.only?.length === 1 && s.only[0] === 'scale') {
    // the scale-out workload alone (issue 20): its own cluster and pods
    log(`scale results: ${await runScale(s.quick)}`);
    return;
  }
  const hardStop = setTimeout(
    () => {
      console.error('benchmark took too long; stopping');
      void stopAll().then(() => process.exit(2));
    },
    (s.quick ? 8 : 30 * s.runs + 10) * 60_000,
  );
  hardStop.unref();
  const redisProc = await startRedis('always');
  const redisEs = await startRedis('everysec');
  const relay = await startRelay(redisProc.port, { cpuProfDir: s.profileDir ?? undefined });
  const relayEs = await startRelay(redisEs.port);
  for (const r of [relay, relayEs]) await waitReady(r.port);
  const floorProc = await startFloor(redisProc.port, s.profileDir ?? undefined);
  const floorEs = await startFloor(redisEs.port);
  const nats = natsAvailable() ? await startNats() : null;
  if (!nats) log(`nats-server not found at ${NATS_BIN}: NATS JetStream is skipped`);

  const runs: RunResult[] = [];
  try {
    for (let run = 1; run <= s.runs; run++) {
      runs.push(
        await oneRun(run, s, {
          redis: redisProc,
          redisEs,
          relay,
          relayEs,
          floor: floorProc,
          floorEs,
          nats,
        }),
      );
    }
  } finally {
    await stopAll();
  }
  const redisVersion = version(process.env.REDIS_SERVER_BIN || 'redis-server', ['--version']);
  const results: BenchResults = {
    date: new Date().toISOString(),
    command,
    quick: s.quick,
    settings: { ...s },
    machine: {
      nproc: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      redis: /v=(\S+)/.exec(redisVersion)?.[1] ?? redisVersion,
      nats: nats ? version(NATS_BIN, ['--version']) : 'not installed',
      os: `${os.type()} ${os.release()}`,
    },
    runs,
  };
  const file = writeReport(results);
  log(`results: ${file}`);
  if (s.only === null && !s.quick) log(`scale results: ${await runScale(false)}`);
}

main().then(
  () => process.exit(0),
  async (err) => {
    console.error(err);
    await stopAll();
    process.exit(1);
  },
);
