/** Routes by the SQS entrance: SendMessage and SendMessageBatch to a queue with routes fan out. */
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { sqsAccount, sqsError, useSqsPods } from '../sqs/support';

const pods = useSqsPods();

test('an SQS send to a queue with routes stores its copies; the MessageId is the first copy', async () => {
  const { sqsA, sqsB, auth } = await sqsAccount(pods, 'rsqs');
  const urls: Record<string, string> = {};
  for (const name of ['orders', 'big', 'all']) {
    urls[name] = (await sqsA.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  }
  const set = await pods.a.http
    .put('/v1/relay/channels/orders/routes')
    .set('Authorization', auth)
    .send({ routes: [{ to: 'big', filter: { body: { total: { $gt: 100 } } } }, { to: 'all' }] });
  expect(set.status).toBe(200);
  const sent = await sqsB.send(
    new SendMessageCommand({ QueueUrl: urls.orders, MessageBody: '{"total": 500}' }),
  );
  await sqsB.send(
    new SendMessageBatchCommand({
      QueueUrl: urls.orders,
      Entries: [{ Id: 'a', MessageBody: '{"total": 5}' }],
    }),
  );
  const receive = async (name: string) =>
    (await sqsA.send(new ReceiveMessageCommand({ QueueUrl: urls[name], MaxNumberOfMessages: 10 })))
      .Messages ?? [];
  const big = await receive('big');
  expect(big.map((m) => m.MessageId)).toEqual([sent.MessageId]);
  expect(big[0].Body).toBe('{"total": 500}');
  expect((await receive('all')).map((m) => m.Body)).toEqual(['{"total": 500}', '{"total": 5}']);
  expect(await receive('orders')).toEqual([]);
});

test('a queue with routes keeps its size cap: its MaximumMessageSize, then the plan limit', async () => {
  const { sqsA, auth } = await sqsAccount(pods, 'rsqscap');
  const small = (
    await sqsA.send(
      new CreateQueueCommand({ QueueName: 'small', Attributes: { MaximumMessageSize: '1024' } }),
    )
  ).QueueUrl!;
  const open = (await sqsA.send(new CreateQueueCommand({ QueueName: 'open' }))).QueueUrl!;
  const copies = (await sqsA.send(new CreateQueueCommand({ QueueName: 'copies' }))).QueueUrl!;
  for (const from of ['small', 'open']) {
    const set = await pods.a.http
      .put(`/v1/relay/channels/${from}/routes`)
      .set('Authorization', auth)
      .send({ routes: [{ to: 'copies' }] });
    expect(set.status).toBe(200);
  }
  await sqsA.send(new SendMessageCommand({ QueueUrl: small, MessageBody: 'y'.repeat(1024) }));
  const refused = async (send: Promise<unknown>) => {
    const err = await sqsError(send);
    return { name: err.name, message: err.message };
  };
  expect(
    await refused(
      sqsA.send(new SendMessageCommand({ QueueUrl: small, MessageBody: 'y'.repeat(1025) })),
    ),
  ).toEqual({
    name: 'InvalidParameterValue',
    message: 'messages[0] is 1025 bytes, over its limit of 1024 bytes (sqs_max_bytes)',
  });
  expect(
    await refused(
      sqsA.send(
        new SendMessageBatchCommand({
          QueueUrl: small,
          Entries: [
            { Id: 'a', MessageBody: 'ok' },
            { Id: 'b', MessageBody: 'y'.repeat(1025) },
          ],
        }),
      ),
    ),
  ).toEqual({
    name: 'InvalidParameterValue',
    message: 'messages[1] is 1025 bytes, over its limit of 1024 bytes (sqs_max_bytes)',
  });
  expect(
    await refused(
      sqsA.send(new SendMessageCommand({ QueueUrl: open, MessageBody: 'x'.repeat(262_145) })),
    ),
  ).toEqual({
    name: 'InvalidParameterValue',
    message: 'messages[0] is 262145 bytes, over its limit of 262144 bytes (max_sqs_message_bytes)',
  });
  // nothing refused was stored: the one copy is the message that fit
  const got = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl: copies, MaxNumberOfMessages: 10 }),
  );
  expect((got.Messages ?? []).map((m) => m.Body)).toEqual(['y'.repeat(1024)]);
});

test('a FIFO queue with routes: copies keep the group and the dedup id; the answer has a SequenceNumber', async () => {
  const { sqsA, auth } = await sqsAccount(pods, 'rsqsfifo');
  const fifo = (name: string) =>
    sqsA.send(
      new CreateQueueCommand({
        QueueName: `${name}.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' },
      }),
    );
  const orders = (await fifo('orders')).QueueUrl!;
  const copy = (await fifo('copy')).QueueUrl!;
  const set = await pods.a.http
    .put(`/v1/relay/channels/${encodeURIComponent('orders.fifo')}/routes`)
    .set('Authorization', auth)
    .send({ routes: [{ to: 'copy.fifo' }] });
  expect(set.status).toBe(200);
  const send = (body: string) =>
    sqsA.send(
      new SendMessageCommand({ QueueUrl: orders, MessageBody: body, MessageGroupId: 'g1' }),
    );
  const first = await send('one');
  const second = await send('two');
  const again = await send('one');
  expect(first.SequenceNumber).toMatch(/^\d{20}$/);
  expect(BigInt(second.SequenceNumber!)).toBeGreaterThan(BigInt(first.SequenceNumber!));
  // a duplicate within the window: the original's id and sequence number, nothing stored
  expect([again.MessageId, again.SequenceNumber]).toEqual([first.MessageId, first.SequenceNumber]);
  const got = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl: copy,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['MessageGroupId', 'SequenceNumber'],
    }),
  );
  expect((got.Messages ?? []).map((m) => [m.Body, m.Attributes?.MessageGroupId])).toEqual([
    ['one', 'g1'],
    ['two', 'g1'],
  ]);
  expect(got.Messages![0].Attributes?.SequenceNumber).toBe(first.SequenceNumber);
  expect(await sqsA.send(new ReceiveMessageCommand({ QueueUrl: orders }))).not.toHaveProperty(
    'Messages.0',
  );
});
