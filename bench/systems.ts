/**
 * The systems under test behind one small interface: relayq over HTTP, the raw
 * Lua ceiling (relayq's own scripts through ioredis, no HTTP), BullMQ, RSMQ and
 * NATS JetStream. Message bodies are JSON text `{"i":<index>,"t":<send ms>,"p":"..."}`.
 */
import Redis from 'ioredis';
import { Queue, Worker } from 'bullmq';
import RedisSMQ from 'rsmq';
import { AckPolicy, connect as natsConnect, StorageType, nanos, type NatsConnection } from 'nats';
import type { Scripts } from '../src/store/scripts';
import { parseRecord } from '../src/store/records';
import type { RedisClient } from '../src/store/redis';
import { JsonClient } from './http';
import { ackScriptCall, benchScripts, pullScriptCall, sendScriptCall } from './scriptCalls';
import { sleep } from './procs';

export interface Msg {
  i: number;
  t: number;
}

export type OnMsgs = (msgs: Msg[], receivedAt: number) => void;

export interface QueueSystem {
  name: string;
  /** true when the system keeps its data in the benchmark's Redis */
  redisBacked: boolean;
  sendBatch(bodies: string[]): Promise<void>;
  sendOne(body: string): Promise<void>;
  /** Starts `loops` consumers; returns a function that stops them. */
  startConsumers(loops: number, onMsgs: OnMsgs): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const now = (): number => performance.timeOrigin + performance.now();

/** Pull-based consumers: each loop pulls up to 100, reports them, then acks them in one call. */
function pullLoops<H>(
  loops: number,
  onMsgs: OnMsgs,
  pull: () => Promise<{ msgs: Msg[]; handle: H }>,
  ack: (handle: H) => Promise<void>,
): () => Promise<void> {
  let running = true;
  const done = Promise.all(
    Array.from({ length: loops }, async () => {
      while (running) {
        try {
          const { msgs, handle } = await pull();
          const at = now();
          if (msgs.length === 0) {
            await sleep(2);
            continue;
          }
          await ack(handle);
          onMsgs(msgs, at);
        } catch (err) {
          if (running) console.error('consumer error:', (err as Error).message);
          await sleep(50);
        }
      }
    }),
  );
  return async () => {
    running = false;
    await done;
  };
}

// ---------------------------------------------------------------------------
// relayq over HTTP

interface Envelope<T> {
  success: boolean;
  result: T;
}

export function relayPaths(channel: string) {
  const base = `/v1/relay/channels/${channel}/messages`;
  return { send: base, batch: `${base}/batch`, pull: `${base}/pull`, ack: `${base}/ack` };
}

export function relayq(port: number, auth: string, channel: string, name = 'relayq'): QueueSystem {
  const http = new JsonClient(port, auth, 128);
  const p = relayPaths(channel);
  return {
    name,
    redisBacked: true,
    async sendBatch(bodies) {
      await http.post(p.batch, `{"messages":[${bodies.map((b) => `{"body":${b}}`).join(',')}]}`);
    },
    async sendOne(body) {
      await http.post(p.send, `{"body":${body}}`);
    },
    async startConsumers(loops, onMsgs) {
      const consumerHttp = new JsonClient(port, auth, loops * 2);
      const stop = pullLoops(
        loops,
        onMsgs,
        async () => {
          const r = await consumerHttp.post<
            Envelope<{ messages: { body: Msg; lease_id: string }[] }>
          >(p.pull, '{"batch_size":100,"visibility_timeout_ms":30000}');
          return {
            msgs: r.result.messages.map((m) => m.body),
            handle: r.result.messages.map((m) => m.lease_id),
          };
        },
        async (leases) => {
          await consumerHttp.post(p.ack, JSON.stringify({ lease_ids: leases }));
        },
      );
      return async () => {
        await stop();
        consumerHttp.close();
      };
    },
    async close() {
      http.close();
    },
  };
}

export const FLOOR = 'node:http floor';

/** The account header of the floor (bench/floor.ts): it names the account, nothing is checked. */
export const floorAuth = (account: string): string => `Account ${account}`;

/** The W2 floor (bench/floor.ts): single sends only, over the same HTTP client as relayq. */
export function floor(port: number, account: string, channel: string): QueueSystem {
  const http = new JsonClient(port, floorAuth(account), 128);
  const p = relayPaths(channel);
  const unsupported = () => Promise.reject(new Error(`${FLOOR} takes single sends only (W2)`));
  return {
    name: FLOOR,
    redisBacked: true,
    sendBatch: unsupported,
    async sendOne(body) {
      await http.post(p.send, `{"body":${body}}`);
    },
    startConsumers: unsupported,
    async close() {
      http.close();
    },
  };
}

// ---------------------------------------------------------------------------
// the raw Lua ceiling

export class RawLua {
  readonly redis: Redis;
  readonly scripts: Scripts;

  constructor(redisPort: number) {
    this.redis = new Redis(redisPort, '127.0.0.1', { maxRetriesPerRequest: 1 });
    this.scripts = benchScripts(this.redis as unknown as RedisClient);
  }

  send(account: string, channel: string, bodies: string[]): Promise<unknown> {
    return sendScriptCall(this.scripts, this.client, account, channel, bodies);
  }

  async pull(account: string, channel: string, batch: number): Promise<[string[], string[]]> {
    const reply = (await pullScriptCall(this.scripts, this.client, account, channel, batch)) as [
      number,
      string[],
    ];
    const flat = reply[1];
    const leases: string[] = [];
    const bodies: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      leases.push(flat[i]);
      bodies.push(parseRecord(flat[i + 1]).bodyJson);
    }
    return [leases, bodies];
  }

  ack(account: string, channel: string, leases: string[]): Promise<unknown> {
    return ackScriptCall(this.scripts, this.client, account, channel, leases);
  }

  private get client(): RedisClient {
    return this.redis as unknown as RedisClient;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export function rawLua(redisPort: number, account: string, channel: string): QueueSystem {
  const lua = new RawLua(redisPort);
  return {
    name: 'raw Lua ceiling',
    redisBacked: true,
    async sendBatch(bodies) {
      await lua.send(account, channel, bodies);
    },
    async sendOne(body) {
      await lua.send(account, channel, [body]);
    },
    async startConsumers(loops, onMsgs) {
      return pullLoops(
        loops,
        onMsgs,
        async () => {
          const [leases, bodies] = await lua.pull(account, channel, 100);
          return { msgs: bodies.map((b) => JSON.parse(b) as Msg), handle: leases };
        },
        async (leases) => {
          await lua.ack(account, channel, leases);
        },
      );
    },
    close: () => lua.close(),
  };
}

// ---------------------------------------------------------------------------
// BullMQ

export function bullmq(redisPort: number, name: string): QueueSystem {
  const connection = { host: '127.0.0.1', port: redisPort, maxRetriesPerRequest: null };
  const queue = new Queue(name, { connection });
  const opts = { removeOnComplete: true, removeOnFail: true };
  return {
    name: 'BullMQ',
    redisBacked: true,
    async sendBatch(bodies) {
      await queue.addBulk(bodies.map((data) => ({ name: 'm', data, opts })));
    },
    async sendOne(body) {
      await queue.add('m', body, opts);
    },
    async startConsumers(loops, onMsgs) {
      // BullMQ has no batch pull (that is BullMQ Pro): `loops` workers with concurrency 100 each.
      const workers = Array.from(
        { length: loops },
        () =>
          new Worker(
            name,
            async (job) => {
              onMsgs([JSON.parse(job.data as string) as Msg], now());
            },
            { connection, concurrency: 100, drainDelay: 1 },
          ),
      );
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      return async () => {
        await Promise.all(workers.map((w) => w.close()));
      };
    },
    async close() {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    },
  };
}

// ---------------------------------------------------------------------------
// RSMQ (single-message API)

export async function rsmq(redisPort: number, qname: string): Promise<QueueSystem> {
  const client = new RedisSMQ({ host: '127.0.0.1', port: redisPort, ns: 'rsmq' });
  await client.createQueueAsync({ qname, vt: 30, maxsize: -1 });
  return {
    name: 'RSMQ',
    redisBacked: true,
    async sendBatch(bodies) {
      await Promise.all(bodies.map((message) => client.sendMessageAsync({ qname, message })));
    },
    async sendOne(message) {
      await client.sendMessageAsync({ qname, message });
    },
    async startConsumers(loops, onMsgs) {
      return pullLoops(
        loops,
        onMsgs,
        async () => {
          // no batch receive in RSMQ: 100 single receives in flight
          const got = await Promise.all(
            Array.from({ length: 100 }, () => client.receiveMessageAsync({ qname })),
          );
          const found = got.filter((m): m is RedisSMQ.QueueMessage => 'id' in m);
          return {
            msgs: found.map((m) => JSON.parse(m.message) as Msg),
            handle: found.map((m) => m.id),
          };
        },
        async (ids) => {
          await Promise.all(ids.map((id) => client.deleteMessageAsync({ qname, id })));
        },
      );
    },
    async close() {
      await client.deleteQueueAsync({ qname }).catch(() => undefined);
      await new Promise((r) => client.quit(() => r(undefined)));
    },
  };
}

// ---------------------------------------------------------------------------
// NATS JetStream: file storage, durable pull consumer, explicit ack, ack wait 30 s,
// max deliver 3; publishes wait for the stream's ack and acks are confirmed (ackAck).

export async function natsJetStream(natsPort: number, stream: string): Promise<QueueSystem> {
  const nc: NatsConnection = await natsConnect({ servers: `127.0.0.1:${natsPort}` });
  const jsm = await nc.jetstreamManager();
  const subject = `${stream}.m`;
  await jsm.streams.add({ name: stream, subjects: [subject], storage: StorageType.File });
  await jsm.consumers.add(stream, {
    durable_name: 'workers',
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(30_000),
    max_deliver: 3,
  });
  const js = nc.jetstream();
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return {
    name: 'NATS JetStream',
    redisBacked: false,
    async sendBatch(bodies) {
      await Promise.all(bodies.map((b) => js.publish(subject, enc.encode(b))));
    },
    async sendOne(body) {
      await js.publish(subject, enc.encode(body));
    },
    async startConsumers(loops, onMsgs) {
      const consumer = await js.consumers.get(stream, 'workers');
      // `loops` continuous pulls of up to 100 messages each; every message is acked
      // with ackAck (the server confirms the ack) as soon as it arrives.
      const iterators = await Promise.all(
        Array.from({ length: loops }, () => consumer.consume({ max_messages: 100 })),
      );
      const inflight = new Set<Promise<unknown>>();
      const done = Promise.all(
        iterators.map(async (iter) => {
          for await (const m of iter) {
            const at = now();
            const msg = JSON.parse(dec.decode(m.data)) as Msg;
            const p = m
              .ackAck()
              .then(() => onMsgs([msg], at))
              .catch(() => undefined)
              .finally(() => inflight.delete(p));
            inflight.add(p);
          }
        }),
      );
      return async () => {
        for (const it of iterators) it.stop();
        await Promise.race([Promise.all([done, ...inflight]), sleep(3000)]);
      };
    },
    async close() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    },
  };
}
