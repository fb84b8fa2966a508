/**
 * Every way in costs one Redis call (issue 24; docs/design.md, "One call per entrance"):
 * an SQS SendMessage, SendMessageBatch, ReceiveMessage (answered at once) and DeleteMessage
 * each make one script call, as a relay send does; a webhook delivery makes one once its pod
 * knows the webhook (two the first time: the lookup, then the send). Counted from MONITOR.
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import {
  accountWithToken,
  eventually,
  sleep,
  startListeningApp,
  type ListeningApp,
} from '../../helpers/app';
import { podCommands } from '../../helpers/monitor';
import { startSingleRedis, type SingleTestRedis } from '../../helpers/redis';
import { createHook, deliver } from '../webhooks/hooks';
import { SQS_KEY, issueAwsToken, sqsClient } from '../sqs/support';

let redis: SingleTestRedis;
let app: ListeningApp;
const env = {
  RELAY_SQS_SECRET_KEY: SQS_KEY,
  // no background work on the pod while commands are counted
  RELAY_SWEEP_INTERVAL_MS: '60000',
  RELAY_GAUGE_INTERVAL_MS: '60000',
  RELAY_DUE_REPAIR_PASS_MS: '60000',
  RELAY_REPLAY_TICK_MS: '60000',
  RELAY_PLANS: JSON.stringify({
    capped: {
      max_storage_bytes: 1_000_000,
      max_channels: 5,
      retention_seconds: 3600,
      max_long_polls: 1,
    },
  }),
};

beforeAll(async () => {
  redis = await startSingleRedis();
  app = await startListeningApp(redis, env);
});
afterAll(async () => {
  await app?.close();
  await redis?.stop();
});

/** The script calls among the commands (each one EVAL or EVALSHA). */
const scriptCalls = (commands: string[]) =>
  commands.filter((c) => c === 'evalsha' || c === 'eval' || c === 'fcall');

test('SQS SendMessage, SendMessageBatch, ReceiveMessage and DeleteMessage: one call each', async () => {
  await app.relay.relay.accounts.create('sqs-one', 'paid');
  const { keys } = await issueAwsToken(app, 'sqs-one');
  const sqs = sqsClient(app, keys);
  const QueueUrl = `${app.baseUrl}/sqs/sqs-one/jobs`;
  const { auth } = await accountWithToken(app, 'sqs-one');
  await app.http.put('/v1/relay/channels/jobs').set('Authorization', auth).send({});
  // warm up: the first timers of the account and the scripts' first EVAL on the connection
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'warm' }));
  const warm = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  await sqs.send(
    new DeleteMessageCommand({ QueueUrl, ReceiptHandle: warm.Messages![0].ReceiptHandle! }),
  );
  await sleep(200);

  const send = await podCommands(redis, app, () =>
    sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'one' })),
  );
  expect(scriptCalls(send)).toHaveLength(1);
  expect(send.length).toBeLessThanOrEqual(3);
  let handle = '';
  const receive = await podCommands(redis, app, async () => {
    // a long poll that finds messages at once answers in its first call
    const got = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 5 }),
    );
    handle = got.Messages![0].ReceiptHandle!;
  });
  expect(scriptCalls(receive)).toHaveLength(1);

  const remove = await podCommands(redis, app, () =>
    sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: handle })),
  );
  expect(scriptCalls(remove)).toHaveLength(1);

  // the channel is drained: a send is announced in its own call, nothing is left pending
  const batch = await podCommands(redis, app, () =>
    sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'two' },
          { Id: 'b', MessageBody: 'three' },
        ],
      }),
    ),
  );
  expect(scriptCalls(batch)).toHaveLength(1);

  // a FIFO queue: its settings are read by the pod's first send to it, then remembered
  const fifoUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: 'jobs.fifo',
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    )
  ).QueueUrl!;
  const fifoSend = (body: string) =>
    sqs.send(new SendMessageCommand({ QueueUrl: fifoUrl, MessageBody: body, MessageGroupId: 'g' }));
  // The pod remembers them for 5 s (FIFO_MEMORY_MS): on a loaded machine that can lapse
  // before the batch is counted (CI once read 2 calls); then the pair is made again.
  let fifoBatch: string[] = [];
  for (let tries = 0; tries < 3; tries++) {
    await fifoSend(`first-${tries}`);
    await sleep(200);
    fifoBatch = await podCommands(redis, app, () =>
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: fifoUrl,
          Entries: [
            { Id: 'a', MessageBody: `f2-${tries}`, MessageGroupId: 'g' },
            { Id: 'b', MessageBody: `f3-${tries}`, MessageGroupId: 'g' },
          ],
        }),
      ),
    );
    if (scriptCalls(fifoBatch).length === 1) break;
  }
  expect(scriptCalls(fifoBatch)).toHaveLength(1);
});

test('a webhook delivery: two calls the first time on a pod, then one', async () => {
  const { auth } = await accountWithToken(app, 'hook-one', { plan: 'paid' });
  const hook = await createHook(app, auth, 'events');
  // warm up: the account's first timers lower the sweeper's due index (a second call, once)
  await app.http
    .post('/v1/relay/channels/events/messages')
    .set('Authorization', auth)
    .send({ body: 0 });
  // the pod's own coalesced announcement and timer calls are done (late on a loaded machine)
  await sleep(1000);
  const first = await podCommands(redis, app, async () => {
    expect((await deliver(app, hook.path, '{"n":1}')).status).toBe(200);
  });
  expect(scriptCalls(first)).toHaveLength(2);
  // drained, so that the next delivery is announced in its own call (nothing left pending)
  const pulled = await app.http
    .post('/v1/relay/channels/events/messages/pull')
    .set('Authorization', auth)
    .send({ batch_size: 10 });
  const leaseIds = pulled.body.result.messages.map((m: { lease_id: string }) => m.lease_id);
  await app.http
    .post('/v1/relay/channels/events/messages/ack')
    .set('Authorization', auth)
    .send({ lease_ids: leaseIds });
  // the pod's own coalesced announcement and timer calls are done (late on a loaded machine)
  await sleep(1000);
  const next = await podCommands(redis, app, async () => {
    expect((await deliver(app, hook.path, '{"n":2}')).status).toBe(200);
  });
  expect(scriptCalls(next)).toHaveLength(1);
  expect(next.length).toBeLessThanOrEqual(3);
});

test('a long poll over the account cap is refused in one call once the pod has seen the cap', async () => {
  await app.relay.relay.accounts.create('capped-lp', 'capped');
  const { auth } = await accountWithToken(app, 'capped-lp');
  const pull = (waitMs: number) =>
    app.http
      .post('/v1/relay/channels/orders/messages/pull')
      .set('Authorization', auth)
      .send({ wait_ms: waitMs });
  await app.http.put('/v1/relay/channels/orders').set('Authorization', auth).send({}).expect(200);
  // held for the whole test: a holder that ended its wait inside a counted pair would add its
  // last look (one call) to the pair's and free the place
  const holding = pull(20_000).then((r) => r);
  await eventually(async () => (await redis.client.keys('rq:{capped-lp}:holders:lp')).length === 1);
  // the first refusal finds the cap in Redis (the pull that found nothing, authorize, the
  // place refused: 3 calls); the pod remembers it for the Retry-After second, so the next
  // one, right after, costs only its pull (which answers at once when messages wait)
  // A pair counts only when both refusals fit in that second (on a loaded machine two
  // requests can be further apart: then the pair is made again, the memory lapsed).
  let refused: Awaited<ReturnType<typeof pull>>[] = [];
  let commands: string[] = [];
  for (let tries = 0; tries < 5; tries++) {
    if (tries > 0) await sleep(1100);
    refused = [];
    let tookMs = 0;
    commands = await podCommands(redis, app, async () => {
      const started = Date.now();
      refused.push(await pull(3000));
      refused.push(await pull(3000));
      tookMs = Date.now() - started;
    });
    if (tookMs < 900) break;
  }
  expect(refused.map((r) => r.status)).toEqual([429, 429]);
  expect(refused[1].headers['retry-after']).toBe('1');
  // 3 + 1 (without the pod's memory: 3 + 3)
  expect(scriptCalls(commands)).toHaveLength(4);
  // a pull that does not wait is still served
  expect((await pull(0)).status).toBe(200);
  // the place freed on this pod is free again at once
  await app.http
    .post('/v1/relay/channels/orders/messages')
    .set('Authorization', auth)
    .send({ body: 'one' })
    .expect(200);
  expect((await holding).body.result.messages).toHaveLength(1);
  expect((await pull(100)).status).toBe(200);
});
