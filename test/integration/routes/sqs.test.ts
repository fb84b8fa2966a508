/** Routes by the SQS entrance: SendMessage and SendMessageBatch to a queue with routes fan out. */
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { sqsAccount, useSqsPods } from '../sqs/support';

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
