/**
 * A private Redis Cluster per test file: three redis-server masters with
 * cluster mode on free ports (and free bus ports, port + 10000), in a temp
 * dir, slots split by hand (ADDSLOTSRANGE, MEET), no replicas. Used by
 * startRedis() when RELAYQ_TEST_TOPOLOGY=cluster.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { redisServerBinary, type TestRedis } from './redis';

const HOST = '127.0.0.1';
const MASTERS = 3;
const SLOTS = 16384;

/** Port of the master that owns the slot of `key` (on a cluster started by startCluster). */
export async function masterOf(redis: TestRedis, key: string): Promise<number> {
  const [slot] = await redis.eachMaster(async (m) =>
    Number(await m.call('CLUSTER', 'KEYSLOT', key)),
  );
  const [ranges] = await redis.eachMaster(
    async (m) => (await m.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][],
  );
  const range = ranges.find(([first, last]) => slot >= first && slot <= last);
  if (!range) throw new Error(`slot ${slot} has no owner`);
  return Number(range[2][1]);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    if (taken.has(port) || taken.has(port + 10000)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + 10000))) {
      taken.add(port);
      taken.add(port + 10000);
      return port;
    }
  }
  throw new Error('no free port pair for a cluster node');
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`test cluster: ${what} not reached in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Node {
  port: number;
  process: ChildProcess;
  exited: Promise<void>;
  client: Redis;
}

function startNode(binary: string, dir: string, port: number): Node {
  const child = spawn(
    binary,
    [
      '--port', String(port),
      '--bind', HOST,
      '--dir', dir,
      '--cluster-enabled', 'yes',
      '--cluster-config-file', `nodes-${port}.conf`,
      '--cluster-node-timeout', '5000',
      '--save', '',
      '--appendonly', 'no',
      '--daemonize', 'no',
      '--loglevel', 'warning',
    ], // prettier-ignore
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const client = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined); // connection refused until the node is up
  return { port, process: child, exited, client };
}

export async function startCluster(): Promise<TestRedis> {
  const binary = redisServerBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-cluster-'));
  const taken = new Set<number>();
  const nodes: Node[] = [];
  const stop = async () => {
    for (const node of nodes) node.client.disconnect();
    for (const node of nodes) node.process.kill('SIGKILL');
    await Promise.all(nodes.map((node) => node.exited));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < MASTERS; i++) {
      nodes.push(startNode(binary, dir, await freeClusterPort(taken)));
    }
    for (const node of nodes) {
      await waitFor(async () => {
        if (node.client.status === 'wait') await node.client.connect();
        return (await node.client.ping()) === 'PONG';
      }, `node ${node.port} up`);
    }
    const per = Math.ceil(SLOTS / MASTERS);
    for (let i = 0; i < MASTERS; i++) {
      const node = nodes[i];
      await node.client.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1));
      const first = i * per;
      const last = Math.min(SLOTS, (i + 1) * per) - 1;
      await node.client.call('CLUSTER', 'ADDSLOTSRANGE', String(first), String(last));
    }
    for (const node of nodes.slice(1)) {
      await nodes[0].client.call('CLUSTER', 'MEET', HOST, String(node.port));
    }
    for (const node of nodes) {
      await waitFor(async () => {
        const info = String(await node.client.call('CLUSTER', 'INFO'));
        return (
          info.includes('cluster_state:ok') &&
          info.includes(`cluster_known_nodes:${MASTERS}`) &&
          info.includes(`cluster_slots_ok:${SLOTS}`)
        );
      }, `cluster_state:ok on ${node.port}`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const masters = nodes.map((node) => node.client);
  return {
    env: { REDIS_CLUSTER_NODES: nodes.map((node) => `${HOST}:${node.port}`).join(',') },
    topology: 'cluster',
    eachMaster: (fn) => Promise.all(masters.map(fn)),
    keys: async (pattern) => (await Promise.all(masters.map((m) => m.keys(pattern)))).flat(),
    flush: async () => {
      await Promise.all(masters.map((m) => m.flushall()));
    },
    stop,
  };
}
