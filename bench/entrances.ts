/**
 * The entrances side by side (issue 24): the same 2 KB GitHub-style event sent 32 at a
 * time through the relay API's single send, a webhook URL with its GitHub signature
 * verified, and SQS SendMessage through the real @aws-sdk/client-sqs (SigV4 signed), on
 * one relayq process over one Redis. The three phases alternate, `rounds` times each;
 * each entrance's rate is the median of its rounds, and the ratios are taken within the
 * run (the machine is shared and noisy: absolute rates mean little, ratios do).
 * Targets: webhook ingest ≥ 0.9 of the single send, SQS ≥ 0.6 of it.
 * `npm run bench -- --only entrances` or, alone, `npm run bench:entrances [-- --quick]
 * [--profile DIR] [--only sqs,send]` (relayq's CPU profile, for bench/profileTop.ts; only
 * some entrances, so that the profile is theirs; `sqs_presigned`, only when named: one
 * SendMessage signed once and replayed, relayq's side of SQS without the SDK's CPU).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { JsonClient } from './http';
import { ADMIN_TOKEN, runAlone, startRedis, startRelay, waitReady } from './procs';
import { median, pool, round } from './stats';

export interface EntrancesResult {
  payload_bytes: number;
  concurrency: number;
  rounds: number;
  /** requests per second, the median of the rounds */
  send_per_s: number;
  webhook_per_s: number;
  sqs_per_s: number;
  /** webhook ingest / single send, SQS SendMessage / single send */
  webhook_ratio: number;
  sqs_ratio: number;
  /**
   * CPU milliseconds per request (medians of the rounds), of the relayq process and of this
   * load-generating process: which side a ratio is spent on (the AWS SDK signs each
   * request and parses each answer, relayq checks the signature)
   */
  cpu_ms_per_request: Record<'send' | 'webhook' | 'sqs', { relayq: number; client: number }>;
  /** with `--only ...,sqs_presigned`: one signed SendMessage replayed (no SDK in the loop) */
  sqs_presigned_per_s?: number;
  sqs_presigned_cpu_ms_per_request?: number;
}

/** A SendMessage signed as the JS SDK signs it (JSON protocol, its headers), to replay. */
async function presign(
  port: number,
  QueueUrl: string,
  payload: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<{ headers: http.OutgoingHttpHeaders; body: string }> {
  const body = JSON.stringify({ QueueUrl, MessageBody: payload });
  const signer = new SignatureV4({
    credentials,
    region: 'us-east-1',
    service: 'sqs',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: '127.0.0.1',
    path: '/sqs',
    query: {},
    headers: {
      host: `127.0.0.1:${port}`,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.SendMessage',
      'x-amzn-query-mode': 'true',
      'amz-sdk-invocation-id': crypto.randomUUID(),
      'amz-sdk-request': 'attempt=1; max=1',
      'x-amz-user-agent': 'aws-sdk-js/3',
      'user-agent': 'aws-sdk-js/3 ua/2.1 os/linux lang/js md/nodejs#20 api/sqs#3',
    },
    body,
  });
  return { headers: signed.headers, body };
}

const CONCURRENCY = 32;
const SECRET = 'bench-github-secret';
const SQS_KEY = 'bench-sqs-secret-key-0123456789abcdef';

/** A GitHub `push`-like event of about 2 KB. */
export function githubEvent(bytes = 2048): string {
  const event = {
    ref: 'refs/heads/main',
    before: 'a'.repeat(40),
    after: 'b'.repeat(40),
    repository: { id: 123456, name: 'relayq', full_name: 'acme/relayq', private: true },
    pusher: { name: 'octocat', email: 'octocat@example.com' },
    commits: [] as { id: string; message: string; timestamp: string }[],
  };
  let i = 0;
  while (JSON.stringify(event).length < bytes - 120) {
    event.commits.push({
      id: crypto.createHash('sha1').update(String(i)).digest('hex'),
      message: `Fix the thing number ${i++}`,
      timestamp: '2026-11-26T10:00:00Z',
    });
  }
  return JSON.stringify(event);
}

/** A keep-alive POST of raw bytes with the given headers; resolves with the status. */
function poster(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (path: string, headers: http.OutgoingHttpHeaders, body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path,
          agent,
          headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** CPU ms a process has used so far (user + system, from /proc; Linux only). */
function processCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Round {
  perSecond: number;
  relayqCpuMs: number;
  clientCpuMs: number;
}

/** `one` on CONCURRENCY loops for `ms` (every answer must be ok): its rate and CPU per request. */
async function rate(ms: number, one: () => Promise<void>, relayqPid: number): Promise<Round> {
  let done = 0;
  const relayqBefore = processCpuMs(relayqPid);
  const clientBefore = process.cpuUsage();
  const started = Date.now();
  await pool(
    CONCURRENCY,
    async () => {
      await one();
      done++;
      return true;
    },
    started + ms,
  );
  const perSecond = done / ((Date.now() - started) / 1000);
  const client = process.cpuUsage(clientBefore);
  return {
    perSecond,
    relayqCpuMs: (processCpuMs(relayqPid) - relayqBefore) / done,
    clientCpuMs: (client.user + client.system) / 1000 / done,
  };
}

export async function runEntrances(
  quick: boolean,
  /** where relayq writes a CPU profile (bench/profileTop.ts reads it) */
  profileDir?: string,
  /** only these phases (`--only sqs,send`: a profile of one entrance); the others read null */
  only?: string[],
): Promise<EntrancesResult> {
  const rounds = 3;
  const phaseMs = quick ? 2000 : 5000;
  const redis = await startRedis('everysec');
  const relay = await startRelay(redis.port, {
    env: { RELAY_SQS_SECRET_KEY: SQS_KEY, LOG_LEVEL: 'warn' },
    cpuProfDir: profileDir,
  });
  const admin = new JsonClient(relay.port, `Bearer ${ADMIN_TOKEN}`, 2);
  const raw = poster(relay.port);
  let sqs: SQSClient | undefined;
  try {
    await waitReady(relay.port);
    await admin.post('/v1/admin/accounts', JSON.stringify({ id: 'entrances', plan: 'paid' }));
    const issued = await admin.post<{
      result: { token: string; aws_access_key_id: string; aws_secret_access_key: string };
    }>('/v1/admin/accounts/entrances/tokens', JSON.stringify({ aws_credentials: true }));
    const { token, aws_access_key_id, aws_secret_access_key } = issued.result;
    const api = new JsonClient(relay.port, `Bearer ${token}`, 4);
    const hook = await api.post<{ result: { url: string } }>(
      '/v1/relay/channels/hooks/webhooks',
      JSON.stringify({ verify: { scheme: 'github', secret: SECRET } }),
    );
    await api.request('PUT', '/v1/relay/channels/queue', '{}');
    const hookPath = new URL(hook.result.url).pathname;
    api.close();

    const payload = githubEvent();
    const sendBody = `{"body":${payload}}`;
    const signature = `sha256=${crypto.createHmac('sha256', SECRET).update(payload).digest('hex')}`;
    const sendHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${relay.port}/sqs`,
      region: 'us-east-1',
      credentials: { accessKeyId: aws_access_key_id, secretAccessKey: aws_secret_access_key },
      maxAttempts: 1,
    });
    const QueueUrl = `http://127.0.0.1:${relay.port}/sqs/entrances/queue`;
    const ok = (status: number, what: string) => {
      if (status !== 200) throw new Error(`${what}: HTTP ${status}`);
    };
    const phases = {
      send: () =>
        raw
          .post('/v1/relay/channels/send/messages', sendHeaders, sendBody)
          .then((s) => ok(s, 'send')),
      webhook: () =>
        raw
          .post(
            hookPath,
            {
              'content-type': 'application/json',
              'user-agent': 'GitHub-Hookshot/bench',
              'x-github-event': 'push',
              // each delivery its own id, as GitHub sends them (each claims a dedup slot)
              'x-github-delivery': crypto.randomUUID(),
              'x-hub-signature-256': signature,
            },
            payload,
          )
          .then((s) => ok(s, 'webhook')),
      sqs: async () => {
        await sqs!.send(new SendMessageCommand({ QueueUrl, MessageBody: payload }));
      },
      // one SendMessage signed once, replayed: relayq's side of SQS without the SDK's CPU
      // on the same 2 cores (only with --only sqs_presigned)
      sqs_presigned: () =>
        raw.post('/sqs', presigned.headers, presigned.body).then((s) => ok(s, 'sqs_presigned')),
    };
    const presigned = await presign(relay.port, QueueUrl, payload, {
      accessKeyId: aws_access_key_id,
      secretAccessKey: aws_secret_access_key,
    });
    const wanted = only ?? ['send', 'webhook', 'sqs'];
    for (const name of Object.keys(phases) as (keyof typeof phases)[]) {
      if (!wanted.includes(name)) delete (phases as Partial<typeof phases>)[name];
    }
    const pid = relay.child.pid!;
    const measured: Record<keyof typeof phases, Round[]> = {
      send: [],
      webhook: [],
      sqs: [],
      sqs_presigned: [],
    };
    // warm-up: the scripts' first EVAL, the webhook's lookup, the SDK's first connections
    for (const one of Object.values(phases)) await rate(300, one, pid);
    for (let r = 0; r < rounds; r++) {
      for (const [name, one] of Object.entries(phases) as [
        keyof typeof phases,
        () => Promise<void>,
      ][]) {
        measured[name].push(await rate(phaseMs, one, pid));
      }
    }
    const perSecond = (name: keyof typeof phases) => median(measured[name].map((x) => x.perSecond));
    const cpu = (name: keyof typeof phases) => ({
      relayq: round(median(measured[name].map((x) => x.relayqCpuMs)), 3),
      client: round(median(measured[name].map((x) => x.clientCpuMs)), 3),
    });
    const send = perSecond('send');
    const webhook = perSecond('webhook');
    const viaSqs = perSecond('sqs');
    return {
      payload_bytes: Buffer.byteLength(payload),
      concurrency: CONCURRENCY,
      rounds,
      send_per_s: round(send, 0),
      webhook_per_s: round(webhook, 0),
      sqs_per_s: round(viaSqs, 0),
      webhook_ratio: round(webhook / send, 2),
      sqs_ratio: round(viaSqs / send, 2),
      cpu_ms_per_request: { send: cpu('send'), webhook: cpu('webhook'), sqs: cpu('sqs') },
      ...(wanted.includes('sqs_presigned')
        ? {
            sqs_presigned_per_s: round(perSecond('sqs_presigned'), 0),
            sqs_presigned_cpu_ms_per_request: cpu('sqs_presigned').relayq,
          }
        : {}),
    };
  } finally {
    sqs?.destroy();
    raw.close();
    admin.close();
    await relay.stop();
    await redis.stop();
  }
}

if (require.main === module) {
  const profile = process.argv.indexOf('--profile');
  const only = process.argv.indexOf('--only');
  runAlone(() =>
    runEntrances(
      process.argv.includes('--quick'),
      profile > 0 ? path.resolve(process.argv[profile + 1]) : undefined,
      only > 0 ? process.argv[only + 1].split(',') : undefined,
    ),
  );
}
