/**
 * Message groups (docs/api/groups.md) and SQS FIFO queues on a real Redis Cluster (three
 * masters), across two pods, for two accounts whose keys live on different masters: the
 * strict-order pitfalls, fair turns, order under concurrent pullers on both pods, the real
 * @aws-sdk/client-sqs FIFO calls, every group key on its account's master, and no CROSSSLOT.
 * (The single-account group suites, core/groups, ws/groups and sqs/fifo, run in this project too.)
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { eventually, sleep } from '../../helpers/app';
import { masterOf } from '../../helpers/cluster';
import { relay, type PulledMessage } from '../../helpers/relayClient';
import { sqsAccount, useSqsPods } from '../sqs/support';

const pods = useSqsPods();
type Account = Awaited<ReturnType<typeof sqsAccount>>;
type Grouped = PulledMessage & { group_id?: string };

/** Two fresh accounts whose keys live on different masters. */
async function twoShards(prefix: string): Promise<[Account, Account]> {
  const first = await sqsAccount(pods, prefix);
  const owner = await masterOf(pods.redis, `rq:{${first.id}}:account`);
  for (;;) {
    const other = await sqsAccount(pods, prefix);
    if ((await masterOf(pods.redis, `rq:{${other.id}}:account`)) !== owner) return [first, other];
  }
}

/** The account's clients on pod A and pod B. */
const clients = (account: Account) => [account.relay, relay(pods.b, account.auth)] as const;

const bodies = (result: { messages: PulledMessage[] }) => result.messages.map((m) => m.body);

/** Every key of the channel's groups, with the port of the master holding it. */
async function groupKeys(account: Account, channel: string): Promise<[string, number][]> {
  const ports = await pods.redis.eachMaster(async (m) => Number(m.options.port));
  const perMaster = await pods.redis.eachMaster((m) =>
    m.keys(`rq:{${account.id}}:c:${channel}:g*`),
  );
  return perMaster.flatMap((keys, i) => keys.map((k): [string, number] => [k, ports[i]]));
}

test('strict order across pods on both shards: a send does not unlock an in-flight group; a retried head comes back first', async () => {
  for (const account of await twoShards('strict')) {
    const [a, b] = clients(account);
    await a.batchOk('orders', { messages: [1, 2].map((n) => ({ body: `a${n}`, group_id: 'a' })) });
    const [head] = (await a.pullOk('orders', { batch_size: 1 })).messages;
    expect(head.body).toBe('a1');
    await b.sendOk('orders', { body: 'a3', group_id: 'a' });
    await b.sendOk('orders', { body: 'b1', group_id: 'b' });
    expect(bodies(await b.pullOk('orders'))).toEqual(['b1']);
    expect(bodies(await a.pullOk('orders'))).toEqual([]);
    expect((await b.channel('orders')).body.result).toMatchObject({
      groups: 2,
      blocked_groups: 2,
    });
    // the group's keys are the account's: all on the master that holds its account record
    const keys = await groupKeys(account, 'orders');
    const owner = await masterOf(pods.redis, `rq:{${account.id}}:account`);
    expect(keys.map(([k]) => k)).toEqual(
      expect.arrayContaining([
        `rq:{${account.id}}:c:orders:gn`,
        `rq:{${account.id}}:c:orders:gl`,
        `rq:{${account.id}}:c:orders:g:a`,
      ]),
    );
    expect(keys.every(([, port]) => port === owner)).toBe(true);

    await b.retryOk('orders', [{ lease_id: head.lease_id, delay_seconds: 1 }]);
    expect(bodies(await a.pullOk('orders'))).toEqual([]);
    await sleep(1100);
    expect((await b.pullOk('orders')).messages.map((m) => [m.body, m.attempts])).toEqual([
      ['a1', 2],
      ['a2', 1],
      ['a3', 1],
    ]);
  }
});

test('on both shards: an expired head comes back first; dead-lettering the head releases the next', async () => {
  for (const account of await twoShards('expiry')) {
    const [a, b] = clients(account);
    await a.batchOk('jobs', { messages: [1, 2].map((n) => ({ body: n, group_id: 'g' })) });
    await a.pullOk('jobs', { batch_size: 1, visibility_timeout_ms: 1000 });
    await b.sendOk('jobs', { body: 3, group_id: 'g' });
    await sleep(1200);
    expect((await b.pullOk('jobs')).messages.map((m) => [m.body, m.attempts])).toEqual([
      [1, 2],
      [2, 1],
      [3, 1],
    ]);

    const config = await a.configure('dl', { max_attempts: 1, dead_letter_channel: 'dl-dlq' });
    expect(config.status).toBe(200);
    await a.batchOk('dl', { messages: ['d1', 'd2'].map((body) => ({ body, group_id: 'g' })) });
    const [head] = (await a.pullOk('dl', { batch_size: 1, visibility_timeout_ms: 1000 })).messages;
    expect(head.body).toBe('d1');
    // its lease runs out with max_attempts 1: dead-lettered (by the sweeper or the next pull)
    let next: PulledMessage[] = [];
    await eventually(async () => {
      next = (await b.pullOk('dl')).messages;
      return next.length > 0;
    }, 8000);
    expect(next.map((m) => m.body)).toEqual(['d2']);
    const dead = (await a.pullOk('dl-dlq')).messages as Grouped[];
    expect(dead.map((m) => [m.body, m.group_id])).toEqual([['d1', 'g']]);
  }
});

test('fair turns on both shards: at most ceil(batch / ready groups) from one group', async () => {
  for (const account of await twoShards('fair')) {
    const [a, b] = clients(account);
    await a.batchOk('orders', {
      messages: Array.from({ length: 50 }, (_, i) => ({ body: `big${i}`, group_id: 'big' })),
    });
    await b.batchOk('orders', {
      messages: [{ body: 's1', group_id: 's1' }, { body: 's2', group_id: 's2' }, { body: 'plain' }],
    });
    // 4 ready groups (the plain message is one of its own): ceil(10 / 4) = 3 from big
    expect(bodies(await b.pullOk('orders', { batch_size: 10 }))).toEqual([
      'big0',
      'big1',
      'big2',
      's1',
      's2',
      'plain',
    ]);
  }
});

test('8 concurrent pullers on two pods: each group is received in send order, nothing twice, nothing lost', async () => {
  const [account] = await twoShards('race');
  const [a, b] = clients(account);
  const groups = 6;
  const perGroup = 15;
  for (let i = 0; i < perGroup; i++) {
    await a.batchOk('race', {
      messages: Array.from({ length: groups }, (_, g) => ({ body: i, group_id: `g${g}` })),
    });
  }
  const received = new Map<string, number[]>();
  let left = groups * perGroup;
  const puller = async (client: typeof a) => {
    for (let idle = 0; left > 0 && idle < 200;) {
      const got = (await client.pullOk('race', { batch_size: 4 })).messages as Grouped[];
      if (got.length === 0) {
        idle++;
        await sleep(10);
        continue;
      }
      for (const m of got)
        received.set(m.group_id!, [...(received.get(m.group_id!) ?? []), m.body as number]);
      left -= got.length;
      await client.ackOk(
        'race',
        got.map((m) => m.lease_id),
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => puller(i % 2 ? b : a)));
  expect(left).toBe(0);
  const inOrder = Array.from({ length: perGroup }, (_, i) => i);
  for (let g = 0; g < groups; g++) expect(received.get(`g${g}`)).toEqual(inOrder);
});

test('SQS FIFO through @aws-sdk/client-sqs on both shards: SequenceNumber, ReceiveRequestAttemptId, dedup after delete', async () => {
  for (const account of await twoShards('fifo')) {
    const { sqsA, sqsB } = account;
    const { QueueUrl: url } = await sqsA.send(
      new CreateQueueCommand({
        QueueName: 'q.fifo',
        Attributes: { FifoQueue: 'true', FifoThroughputLimit: 'perMessageGroupId' },
      }),
    );
    const attributes = await sqsB.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    expect(attributes.Attributes).toMatchObject({
      FifoQueue: 'true',
      ContentBasedDeduplication: 'false',
      DeduplicationScope: 'queue',
      FifoThroughputLimit: 'perMessageGroupId',
    });
    const batch = await sqsA.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'a1', MessageBody: 'a1', MessageGroupId: 'a', MessageDeduplicationId: 'a1' },
          { Id: 'nogroup', MessageBody: 'x', MessageDeduplicationId: 'x' },
          { Id: 'a2', MessageBody: 'a2', MessageGroupId: 'a', MessageDeduplicationId: 'a2' },
          { Id: 'b1', MessageBody: 'b1', MessageGroupId: 'b', MessageDeduplicationId: 'b1' },
        ],
      }),
    );
    expect(batch.Failed!.map((f) => [f.Id, f.Code])).toEqual([['nogroup', 'MissingParameter']]);
    const seqs = batch.Successful!.map((s) => BigInt(s.SequenceNumber!));
    expect(seqs[1]).toBeGreaterThan(seqs[0]);
    expect(seqs[2]).toBeGreaterThan(seqs[1]);

    // a receive retried with its attempt id (on the other pod) gets the same messages
    const receive = (sqs: typeof sqsA, attempt?: string) =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          ReceiveRequestAttemptId: attempt,
          MessageSystemAttributeNames: ['MessageGroupId', 'SequenceNumber'],
        }),
      );
    const first = await receive(sqsA, 'attempt-1');
    expect(first.Messages!.map((m) => [m.Body, m.Attributes!.MessageGroupId])).toEqual([
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
    ]);
    expect(first.Messages![0].Attributes!.SequenceNumber).toBe(String(seqs[0]));
    const retried = await receive(sqsB, 'attempt-1');
    expect(retried.Messages!.map((m) => m.ReceiptHandle)).toEqual(
      first.Messages!.map((m) => m.ReceiptHandle),
    );
    // both groups in flight: a send to group a does not unlock it
    await sqsB.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'a3',
        MessageGroupId: 'a',
        MessageDeduplicationId: 'a3',
      }),
    );
    expect(await receive(sqsB)).not.toHaveProperty('Messages');
    for (const m of first.Messages!) {
      await sqsB.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
    }
    expect((await receive(sqsA)).Messages!.map((m) => m.Body)).toEqual(['a3']);

    // a1 was received and deleted; 4 minutes on, its dedup id still answers its MessageId
    const dx = `rq:{${account.id}}:c:q.fifo:dx`;
    const [seconds] = await pods.a.redis.time();
    await pods.a.redis.zadd(dx, Number(seconds) * 1000 + 60_000, 'a1');
    const again = await sqsB.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'a1',
        MessageGroupId: 'a',
        MessageDeduplicationId: 'a1',
      }),
    );
    expect(again.MessageId).toBe(batch.Successful![0].MessageId);
    expect(again.SequenceNumber).toBe(String(seqs[0]));
    expect(
      (
        await sqsA.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
            ],
          }),
        )
      ).Attributes,
    ).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
  }
});

test('no master ever answered CROSSSLOT, and no script call failed', async () => {
  const stats = await pods.redis.eachMaster(async (m) => String(await m.info('errorstats')));
  for (const s of stats) expect(s).not.toMatch(/CROSSSLOT|non local key/i);
  for (const pod of [pods.a, pods.b]) {
    const text = await pod.relay.metrics.registry.getSingleMetricAsString(
      'relayq_redis_script_errors_total',
    );
    expect(text).not.toMatch(/^relayq_redis_script_errors_total\{/m);
  }
});
