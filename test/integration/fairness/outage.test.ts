/**
 * Outages stay inside the contract: while Redis is stopped or frozen, every
 * request (waiting long polls included) is answered the 503 within the 2 s
 * bound, and everything logged, the subscriber connection's errors included,
 * is one JSON object per line.
 */
import pino from 'pino';
import request from 'supertest';
import { buildApp, type RelayApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createRedis, type RedisClient } from '../../../src/store/redis';
import { ADMIN_TOKEN, accountWithToken, eventually } from '../../helpers/app';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';

jest.setTimeout(60_000);

let redis: SingleTestRedis;
let relay: RelayApp;
let client: RedisClient;
let auth: string;
const lines: string[] = [];

beforeAll(async () => {
  redis = await startSingleRedis();
  const config = loadConfig({
    ...redis.env,
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    RELAY_SWEEP_INTERVAL_MS: '50',
  });
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  client = createRedis(config.redis);
  relay = buildApp({ config, redis: client, logger });
  await relay.start();
});
// (a restarted test Redis has lost the account: make it again)
beforeEach(async () => {
  await redis.flush();
  ({ auth } = await accountWithToken(
    { relay, redis: client, http: request(relay.app), close: async () => undefined },
    'acme',
  ));
});
afterAll(async () => {
  await relay.close();
  client.disconnect();
  await redis.stop();
});

const base = '/v1/relay/channels/orders/messages';
const BOUND_MS = 2000;
/** scheduling slack on a shared test machine, on top of the bound */
const SLACK_MS = 800;

function requests(): [string, () => request.Test][] {
  const h = request(relay.app);
  return [
    ['send', () => h.post(base).set('Authorization', auth).send({ body: 1 })],
    ['pull', () => h.post(`${base}/pull`).set('Authorization', auth).send({})],
    [
      'long poll',
      () => h.post(`${base}/pull`).set('Authorization', auth).send({ wait_ms: 20_000 }),
    ],
    ['channels', () => h.get('/v1/relay/channels').set('Authorization', auth)],
    ['account', () => h.get('/v1/account').set('Authorization', auth)],
    ['admin', () => h.get('/v1/admin/accounts/acme').set('Authorization', `Bearer ${ADMIN_TOKEN}`)],
  ];
}

/** Long polls that are waiting when the outage begins. */
async function waitingLongPolls(n: number) {
  const h = request(relay.app);
  const before = relay.deps.waiters.count();
  const polls = Array.from({ length: n }, () =>
    h
      .post(`${base}/pull`)
      .set('Authorization', auth)
      .send({ wait_ms: 20_000 })
      .then((res) => ({ res, at: Date.now() })),
  );
  await eventually(() => relay.deps.waiters.count() === before + n, 5000);
  return polls;
}

async function expectAnsweredInBound(
  outageAt: number,
  polls: Promise<{ res: request.Response; at: number }>[],
) {
  const calls = requests().map(async ([name, call]) => {
    const started = Date.now();
    const res = await call();
    return { name, status: res.status, ms: Date.now() - started };
  });
  for (const r of await Promise.all(calls)) {
    expect({ name: r.name, status: r.status }).toEqual({ name: r.name, status: 503 });
    expect(r.ms).toBeLessThan(BOUND_MS + SLACK_MS);
  }
  for (const { res, at } of await Promise.all(polls)) {
    expect(res.status).toBe(503);
    expect(at - outageAt).toBeLessThan(BOUND_MS + SLACK_MS);
  }
}

function expectJsonLog() {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines
    .join('')
    .split('\n')
    .filter((l) => l !== '')) {
    expect(() => JSON.parse(line)).not.toThrow();
  }
}

test('a stopped Redis: every request, waiting long polls included, answers the 503 in the bound; the log stays JSON', async () => {
  const unhandled = jest.spyOn(console, 'error');
  try {
    const polls = await waitingLongPolls(3);
    await redis.pause();
    const outageAt = Date.now();
    await expectAnsweredInBound(outageAt, polls);
    await new Promise((r) => setTimeout(r, 1500)); // reconnection attempts, each logged
    expect(unhandled).not.toHaveBeenCalled();
    expectJsonLog();
    expect(lines.some((l) => l.includes('redis subscriber connection error'))).toBe(true);
  } finally {
    unhandled.mockRestore();
    await redis.resume();
  }
  await eventually(
    async () => (await request(relay.app).get('/readyz')).status === 200,
    15_000,
    100,
  );
});

test('a frozen Redis (SIGSTOP): the same bound, waiting long polls included', async () => {
  const info = await redis.client.info('server');
  const pid = Number(/process_id:(\d+)/.exec(info)![1]);
  const polls = await waitingLongPolls(3);
  process.kill(pid, 'SIGSTOP');
  const outageAt = Date.now();
  try {
    await expectAnsweredInBound(outageAt, polls);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  expectJsonLog();
  await eventually(
    async () => (await request(relay.app).get('/readyz')).status === 200,
    15_000,
    100,
  );
});
