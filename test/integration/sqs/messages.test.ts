/** SQS protocol: send, receive, delete and visibility with the real @aws-sdk/client-sqs. */
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { sqsAccount, sqsError, useSqsPods } from './support';

const pods = useSqsPods();

test('SendMessage, ReceiveMessage and DeleteMessage round-trip a message', async () => {
  const { sqsA, urlOf } = await sqsAccount(pods, 'msg');
  const created = await sqsA.send(new CreateQueueCommand({ QueueName: 'orders' }));
  expect(created.QueueUrl).toBe(urlOf('orders'));
  const sent = await sqsA.send(
    new SendMessageCommand({ QueueUrl: created.QueueUrl, MessageBody: 'hello ünïcode' }),
  );
  expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
  const received = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl: created.QueueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  expect(received.Messages).toHaveLength(1);
  const [m] = received.Messages!;
  expect(m.Body).toBe('hello ünïcode');
  expect(m.MessageId).toBe(sent.MessageId);
  expect(m.Attributes?.ApproximateReceiveCount).toBe('1');
  await sqsA.send(
    new DeleteMessageCommand({ QueueUrl: created.QueueUrl, ReceiptHandle: m.ReceiptHandle }),
  );
  const after = await sqsA.send(new ReceiveMessageCommand({ QueueUrl: created.QueueUrl }));
  expect(after.Messages).toBeUndefined();
});

test('an unknown queue is QueueDoesNotExist', async () => {
  const { sqsA, urlOf } = await sqsAccount(pods, 'msg');
  const err = await sqsError(
    sqsA.send(new SendMessageCommand({ QueueUrl: urlOf('nope'), MessageBody: 'x' })),
  );
  expect(err).toMatchObject({ name: 'QueueDoesNotExist', status: 400 });
  const bad = await sqsError(
    sqsA.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: urlOf('nope'),
        ReceiptHandle: 'x',
        VisibilityTimeout: 1,
      }),
    ),
  );
  expect(bad.name).toBe('QueueDoesNotExist');
});
