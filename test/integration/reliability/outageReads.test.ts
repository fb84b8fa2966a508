/**
 * A Redis outage is a 503 on every read path, in each entrance's shape, also when it starts
 * between a request's authorization and its next read (docs/guarantees.md, "When Redis is
 * unavailable"): the reads outside the scripts (SQS authentication's token lookup, channel,
 * webhook and token listings, the account count, the gauges and the sweeper) go through the
 * store's one error mapping. And the pod answers again within 1 s of Redis answering, also
 * while requests keep arriving.
 */
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { ADMIN_TOKEN, accountWithToken, eventually, sleep } from '../../helpers/app';
import { OUTAGE_MESSAGE } from '../../helpers/outage';
import { startSingleRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { RelayError } from '../../../src/errors';
import { issueAwsToken, SQS_KEY, sqsClient, sqsError } from '../sqs/support';

jest.setTimeout(90_000);

const rq = useRelay({
  listen: true,
  env: { RELAY_SQS_SECRET_KEY: SQS_KEY },
  flush: false,
  redis: () => startSingleRedis(['--appendonly', 'yes']),
});

const UNAVAILABLE = {
  success: false,
  errors: [
    {
      code: 503,
      message: OUTAGE_MESSAGE,
    },
  ],
  messages: [],
  result: null,
};

let relayAuth: string;
let ownerAuth: string;
let sqs: ReturnType<typeof sqsClient>;

beforeAll(async () => {
  ({ auth: relayAuth } = await accountWithToken(rq.app, 'acme'));
  const owner = await rq.app.relay.relay.tokens.issue('acme', { role: 'owner' });
  ownerAuth = `Bearer ${owner.token}`;
  sqs = sqsClient(rq.app, (await issueAwsToken(rq.app, 'acme')).keys);
  await rq.app.http
    .post('/v1/relay/channels/orders/messages')
    .set('Authorization', relayAuth)
    .send({ body: 1 });
});
afterAll(() => sqs?.destroy());

async function redisPid(): Promise<number> {
  const info = await rq.redis.client.info('server');
  return Number(/process_id:(\d+)/.exec(info)![1]);
}

/** Waits until the pod answers a read again (after a test froze Redis). */
async function recovered(): Promise<void> {
  await eventually(
    async () =>
      (await rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth)).status === 200,
    15_000,
    50,
  );
}

/**
 * Freezes Redis (SIGSTOP) right after the request's authorization answered, so that the
 * outage meets the read that follows it; SIGCONT once the request is answered.
 */
async function frozenAfterAuthorization<T>(request: () => Promise<T>): Promise<T> {
  const pid = await redisPid();
  const accounts = rq.app.relay.store.accounts;
  const authorize = accounts.authorize;
  accounts.authorize = async (...args) => {
    const authorized = await authorize(...args);
    accounts.authorize = authorize;
    process.kill(pid, 'SIGSTOP');
    return authorized;
  };
  try {
    return await request();
  } finally {
    accounts.authorize = authorize;
    process.kill(pid, 'SIGCONT');
    await recovered();
  }
}

const READS: [string, () => Promise<{ status: number; body: unknown }>][] = [
  ['channels.list', () => rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth)],
  [
    'webhooks.list',
    () => rq.app.http.get('/v1/relay/channels/orders/webhooks').set('Authorization', ownerAuth),
  ],
  [
    'accounts.listTokens',
    () => rq.app.http.get('/v1/account/tokens').set('Authorization', ownerAuth),
  ],
];

test.each(READS)(
  '%s: an outage that starts after the authorization is the 503 envelope',
  async (_name, request) => {
    const res = await frozenAfterAuthorization(request);
    expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: UNAVAILABLE });
  },
);

test('a frozen Redis: every read path answers 503 in its entrance shape; the pod answers again within 1 s of SIGCONT, with requests arriving', async () => {
  const pid = await redisPid();
  process.kill(pid, 'SIGSTOP');
  let resumedAt = 0;
  try {
    // SQS authentication reads the token first: SQS's ServiceUnavailable, not InternalFailure
    const error = await sqsError(sqs.send(new ListQueuesCommand({})));
    expect({ name: error.name, status: error.status }).toEqual({
      name: 'ServiceUnavailable',
      status: 503,
    });
    for (const [name, request] of READS) {
      const res = await request();
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 503,
        body: UNAVAILABLE,
      });
    }
    const admin = await rq.app.http
      .get('/v1/admin/accounts/acme/tokens')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect({ status: admin.status, body: admin.body }).toEqual({ status: 503, body: UNAVAILABLE });
    // the reads behind no entrance: the store's 503 too (the sweeper and gauges log it)
    const store = rq.app.relay;
    for (const read of [
      () => store.store.accounts.count(),
      () => store.gauges.foldAccount('acme'),
      () => store.gauges.read(),
      () => store.sweeper.tick(),
    ]) {
      const err = await read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RelayError);
      expect((err as RelayError).code).toBe('unavailable');
    }

    // Requests keep arriving through the outage and the recovery.
    let arriving = true;
    const load = (async () => {
      while (arriving) {
        await Promise.all([
          rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth),
          sqs.send(new ListQueuesCommand({})).catch(() => null),
        ]);
        await sleep(10);
      }
    })();
    await sleep(500);
    process.kill(pid, 'SIGCONT');
    resumedAt = Date.now();
    let answeredAt = 0;
    while (Date.now() - resumedAt < 5000) {
      const res = await rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth);
      if (res.status === 200) {
        answeredAt = Date.now();
        break;
      }
      await sleep(20);
    }
    arriving = false;
    await load;
    expect(answeredAt - resumedAt).toBeGreaterThanOrEqual(0);
    expect(answeredAt - resumedAt).toBeLessThanOrEqual(1000);
    const listed = await sqs.send(new ListQueuesCommand({}));
    expect(listed.$metadata.httpStatusCode).toBe(200);
  } finally {
    if (resumedAt === 0) process.kill(pid, 'SIGCONT');
  }
});

test('a restarted Redis: the pod answers again within 1 s of Redis accepting connections', async () => {
  await rq.redis.pause();
  const down = await rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth);
  expect({ status: down.status, body: down.body }).toEqual({ status: 503, body: UNAVAILABLE });
  await sleep(1500); // several reconnection attempts fail meanwhile
  await rq.redis.resume();
  const resumedAt = Date.now();
  let answeredAt = 0;
  while (Date.now() - resumedAt < 5000) {
    const res = await rq.app.http.get('/v1/relay/channels').set('Authorization', relayAuth);
    if (res.status === 200) {
      answeredAt = Date.now();
      break;
    }
    await sleep(20);
  }
  expect(answeredAt).toBeGreaterThan(0);
  expect(answeredAt - resumedAt).toBeLessThanOrEqual(1000);
});
