/** SQS FIFO queues and message groups, driven by the real @aws-sdk/client-sqs (docs/sqs.md). */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import type Redis from 'ioredis';
import crypto from 'node:crypto';
import { sqsAccount, sqsError, useSqsPods } from './support';

const pods = useSqsPods();
/** A command on the (single) Redis. */
const redisCall = async <T>(fn: (r: Redis) => Promise<T>): Promise<T> =>
  (await pods.redis.eachMaster(fn))[0];

const fifoQueue = async (
  sqs: Awaited<ReturnType<typeof sqsAccount>>['sqsA'],
  name: string,
  attributes: Record<string, string> = {},
) =>
  (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { FifoQueue: 'true', ...attributes },
      }),
    )
  ).QueueUrl!;

test('CreateQueue: .fifo with FifoQueue true; the FIFO attributes are stored and returned', async () => {
  const { sqsA } = await sqsAccount(pods, 'fifocreate');
  const url = await fifoQueue(sqsA, 'orders.fifo', {
    ContentBasedDeduplication: 'true',
    DeduplicationScope: 'messageGroup',
    FifoThroughputLimit: 'perMessageGroupId',
  });
  const { Attributes } = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
  );
  expect(Attributes).toMatchObject({
    FifoQueue: 'true',
    ContentBasedDeduplication: 'true',
    DeduplicationScope: 'messageGroup',
    FifoThroughputLimit: 'perMessageGroupId',
  });
  // the same CreateQueue again answers the same URL
  expect(await fifoQueue(sqsA, 'orders.fifo', { ContentBasedDeduplication: 'true' })).toBe(url);
  const plain = await fifoQueue(sqsA, 'plain.fifo');
  const defaults = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl: plain, AttributeNames: ['All'] }),
  );
  expect(defaults.Attributes).toMatchObject({
    FifoQueue: 'true',
    ContentBasedDeduplication: 'false',
    DeduplicationScope: 'queue',
    FifoThroughputLimit: 'perQueue',
  });
  await sqsA.send(
    new SetQueueAttributesCommand({
      QueueUrl: plain,
      Attributes: { ContentBasedDeduplication: 'true' },
    }),
  );
  const after = await sqsA.send(
    new GetQueueAttributesCommand({
      QueueUrl: plain,
      AttributeNames: ['ContentBasedDeduplication'],
    }),
  );
  expect(after.Attributes).toEqual({ ContentBasedDeduplication: 'true' });
});

test('FIFO attribute errors', async () => {
  const { sqsA } = await sqsAccount(pods, 'fifoerrors');
  // a .fifo name without the attribute, the attribute without the suffix
  expect(await sqsError(sqsA.send(new CreateQueueCommand({ QueueName: 'a.fifo' })))).toMatchObject({
    name: 'InvalidParameterValue',
    status: 400,
  });
  expect(
    await sqsError(
      sqsA.send(new CreateQueueCommand({ QueueName: 'a', Attributes: { FifoQueue: 'true' } })),
    ),
  ).toMatchObject({ name: 'InvalidParameterValue', status: 400 });
  // a FIFO attribute on a standard queue, a bad value
  expect(
    await sqsError(
      sqsA.send(
        new CreateQueueCommand({
          QueueName: 'b',
          Attributes: { ContentBasedDeduplication: 'true' },
        }),
      ),
    ),
  ).toMatchObject({ name: 'InvalidAttributeName' });
  expect(
    await sqsError(
      sqsA.send(
        new CreateQueueCommand({
          QueueName: 'c.fifo',
          Attributes: { FifoQueue: 'true', DeduplicationScope: 'everywhere' },
        }),
      ),
    ),
  ).toMatchObject({ name: 'InvalidAttributeValue' });
  const url = await fifoQueue(sqsA, 'd.fifo');
  // MessageGroupId required; per-message DelaySeconds refused; a dedup id needed without CBD
  expect(
    await sqsError(
      sqsA.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageDeduplicationId: '1' }),
      ),
    ),
  ).toMatchObject({ name: 'MissingParameter' });
  expect(
    await sqsError(
      sqsA.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: 'x',
          MessageGroupId: 'g',
          MessageDeduplicationId: '1',
          DelaySeconds: 5,
        }),
      ),
    ),
  ).toMatchObject({ name: 'InvalidParameterValue' });
  expect(
    await sqsError(
      sqsA.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x', MessageGroupId: 'g' })),
    ),
  ).toMatchObject({ name: 'InvalidParameterValue' });
  expect(await sqsA.send(new ReceiveMessageCommand({ QueueUrl: url }))).not.toHaveProperty(
    'Messages',
  );
});

test('a batch entry without MessageGroupId fails alone; results carry increasing SequenceNumbers', async () => {
  const { sqsA } = await sqsAccount(pods, 'fifobatch');
  const url = await fifoQueue(sqsA, 'q.fifo', { ContentBasedDeduplication: 'true' });
  const res = await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: [
        { Id: 'a', MessageBody: 'one', MessageGroupId: 'g' },
        { Id: 'nogroup', MessageBody: 'two' },
        { Id: 'b', MessageBody: 'three', MessageGroupId: 'g' },
      ],
    }),
  );
  expect(res.Failed!.map((f) => [f.Id, f.Code])).toEqual([['nogroup', 'MissingParameter']]);
  const seqs = res.Successful!.map((s) => s.SequenceNumber!);
  expect(seqs.every((s) => /^\d+$/.test(s))).toBe(true);
  expect(BigInt(seqs[1])).toBeGreaterThan(BigInt(seqs[0]));
  const single = await sqsA.send(
    new SendMessageCommand({ QueueUrl: url, MessageBody: 'four', MessageGroupId: 'g' }),
  );
  expect(BigInt(single.SequenceNumber!)).toBeGreaterThan(BigInt(seqs[1]));
  const got = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['MessageGroupId', 'SequenceNumber', 'MessageDeduplicationId'],
    }),
  );
  expect(got.Messages!.map((m) => m.Body)).toEqual(['one', 'three', 'four']);
  expect(got.Messages![0].Attributes).toEqual({
    MessageGroupId: 'g',
    SequenceNumber: seqs[0],
    MessageDeduplicationId: crypto.createHash('sha256').update('one').digest('hex'),
  });
});

test('a dedup id still deduplicates after its message was received and deleted', async () => {
  const { sqsA, id: account } = await sqsAccount(pods, 'fifodedup');
  const url = await fifoQueue(sqsA, 'q.fifo');
  const send = () =>
    sqsA.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'pay',
        MessageGroupId: 'cus_1',
        MessageDeduplicationId: 'evt_1',
      }),
    );
  const first = await send();
  const got = await sqsA.send(new ReceiveMessageCommand({ QueueUrl: url }));
  await sqsA.send(
    new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: got.Messages![0].ReceiptHandle }),
  );
  // 4 minutes later (the window's end moved to 1 minute from now, on Redis's clock)
  const dx = `rq:{${account}}:c:q.fifo:dx`;
  const [seconds] = await redisCall((r) => r.time());
  const ends = Number(await redisCall((r) => r.zscore(dx, 'evt_1')));
  expect(ends).toBeGreaterThan(Number(seconds) * 1000 + 290_000);
  await redisCall((r) => r.zadd(dx, Number(seconds) * 1000 + 60_000, 'evt_1'));
  const again = await send();
  expect(again.MessageId).toBe(first.MessageId);
  expect(again.SequenceNumber).toBe(first.SequenceNumber);
  expect(await sqsA.send(new ReceiveMessageCommand({ QueueUrl: url }))).not.toHaveProperty(
    'Messages',
  );
  // past the 5 minutes: a new message
  await redisCall((r) => r.zadd(dx, Number(seconds) * 1000 - 1, 'evt_1'));
  const later = await send();
  expect(later.MessageId).not.toBe(first.MessageId);
});

test('DeduplicationScope messageGroup: one dedup id in two groups is two messages', async () => {
  const { sqsA } = await sqsAccount(pods, 'fifoscope');
  const url = await fifoQueue(sqsA, 'q.fifo', { DeduplicationScope: 'messageGroup' });
  const send = (group: string) =>
    sqsA.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: group,
        MessageGroupId: group,
        MessageDeduplicationId: 'same',
      }),
    );
  const a = await send('a');
  const b = await send('b');
  expect(b.MessageId).not.toBe(a.MessageId);
  expect((await send('a')).MessageId).toBe(a.MessageId);
});

test('ReceiveRequestAttemptId returns the same messages when a receive is retried', async () => {
  const { sqsA, sqsB } = await sqsAccount(pods, 'fifoattempt');
  const url = await fifoQueue(sqsA, 'q.fifo', { ContentBasedDeduplication: 'true' });
  await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: ['1', '2', '3'].map((n) => ({ Id: n, MessageBody: n, MessageGroupId: `g${n}` })),
    }),
  );
  const receive = (sqs: typeof sqsA) =>
    sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 2,
        ReceiveRequestAttemptId: 'attempt-1',
      }),
    );
  const first = await receive(sqsA);
  const retried = await receive(sqsB);
  expect(retried.Messages!.map((m) => [m.MessageId, m.ReceiptHandle])).toEqual(
    first.Messages!.map((m) => [m.MessageId, m.ReceiptHandle]),
  );
  // another attempt gets the rest
  const other = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
  );
  expect(other.Messages!.map((m) => m.Body)).toEqual(['3']);
});

test('FIFO groups: a group waits while its head is in flight; others go on', async () => {
  const { sqsA, sqsB } = await sqsAccount(pods, 'fifoorder');
  const url = await fifoQueue(sqsA, 'q.fifo', { ContentBasedDeduplication: 'true' });
  for (const [body, group] of [
    ['a1', 'a'],
    ['a2', 'a'],
    ['b1', 'b'],
  ])
    await sqsA.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: group }),
    );
  const one = await sqsA.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 1 }));
  expect(one.Messages!.map((m) => m.Body)).toEqual(['a1']);
  const two = await sqsB.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
  );
  expect(two.Messages!.map((m) => m.Body)).toEqual(['b1']);
  await sqsA.send(
    new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: one.Messages![0].ReceiptHandle }),
  );
  const three = await sqsB.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
  );
  expect(three.Messages!.map((m) => m.Body)).toEqual(['a2']);
});

test('the relay API and SQS share FIFO and fair queues', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'fifoshare');
  const fifo = await fifoQueue(sqsA, 'q.fifo', { ContentBasedDeduplication: 'true' });
  const view = (await relay.channel('q.fifo')).body.result;
  expect(view.config).toMatchObject({ fifo: true, group_order: 'strict' });
  const refused = await relay.send('q.fifo', { body: 1 });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].message).toContain('group_id');
  await relay.sendOk('q.fifo', { body: 'from relay', group_id: 'g' });
  const got = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl: fifo, MessageSystemAttributeNames: ['All'] }),
  );
  expect(got.Messages![0].Attributes!.MessageGroupId).toBe('g');
  // a standard queue: MessageGroupId gives fair turns, shown as group_id
  const { QueueUrl: std } = await sqsA.send(new CreateQueueCommand({ QueueName: 'std' }));
  expect((await relay.channel('std')).body.result.config.group_order).toBe('fair');
  await sqsA.send(
    new SendMessageCommand({ QueueUrl: std, MessageBody: 'x', MessageGroupId: 't1' }),
  );
  const pulled = await relay.pullOk('std');
  expect(pulled.messages.map((m) => (m as { group_id?: string }).group_id)).toEqual(['t1']);
});
