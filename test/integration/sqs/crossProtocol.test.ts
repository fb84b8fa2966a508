/**
 * One queue, two protocols: messages sent over SQS are pulled over the relay
 * API and the other way round; WebSocket subscribers hear SQS sends.
 */
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { closeClients, newMessage, subscribe } from '../../helpers/ws';
import { sqsAccount, useSqsPods } from './support';

const pods = useSqsPods();
afterEach(closeClients);

test('an SQS message is pulled over the relay API as text, its attributes in metadata', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'toRelay');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'mixed' }));
  const sent = await sqsA.send(
    new SendMessageCommand({
      QueueUrl,
      MessageBody: '{"not":"parsed"}',
      MessageAttributes: {
        kind: { DataType: 'String', StringValue: 'order' },
        raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
      },
    }),
  );
  const pulled = await relay.pullOk('mixed');
  expect(pulled.messages).toEqual([
    {
      id: sent.MessageId,
      body: '{"not":"parsed"}',
      content_type: 'text',
      metadata: {
        sqs_attributes: {
          kind: { DataType: 'String', StringValue: 'order' },
          raw: { DataType: 'Binary', BinaryValue: 'AQID' },
        },
      },
      attempts: 1,
      timestamp_ms: expect.any(Number),
      lease_id: expect.any(String),
    },
  ]);
  expect(await relay.ackOk('mixed', { lease_ids: [pulled.messages[0].lease_id] })).toEqual({
    acked_count: 1,
  });
});

test('relay messages are received over SQS: JSON as compact text, text as is, bytes as base64', async () => {
  const { sqsA, relay, urlOf } = await sqsAccount(pods, 'toSqs');
  const json = await relay.sendOk('mixed', { body: { b: [true, null, 1.5], a: 'ü' } });
  const text = await relay.sendOk('mixed', { body: 'plain', content_type: 'text' });
  const bytes = await relay.sendOk('mixed', { body: 'AAEC', content_type: 'bytes' });
  const nul = await relay.sendOk('mixed', { body: null });
  const tagged = await relay.sendOk('mixed', {
    body: 1,
    metadata: {
      source: 'relay',
      sqs_attributes: { n: { DataType: 'Number', StringValue: '5' }, junk: { nope: true } },
    },
  });
  // the SDK checks each MD5OfBody against the body it received
  const got = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl: urlOf('mixed'),
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
    }),
  );
  expect(got.Messages!.map((m) => [m.MessageId, m.Body])).toEqual([
    [json, '{"b":[true,null,1.5],"a":"ü"}'],
    [text, 'plain'],
    [bytes, 'AAEC'],
    [nul, 'null'],
    [tagged, '1'],
  ]);
  expect(got.Messages![4].MessageAttributes).toEqual({
    n: { DataType: 'Number', StringValue: '5' },
  });
  expect(got.Messages![0].MessageAttributes).toBeUndefined();
  // an SQS receipt handle is the relay lease: either API may settle it
  await sqsA.send(
    new DeleteMessageCommand({
      QueueUrl: urlOf('mixed'),
      ReceiptHandle: got.Messages![0].ReceiptHandle,
    }),
  );
  expect(
    await relay.ackOk('mixed', { lease_ids: got.Messages!.slice(1).map((m) => m.ReceiptHandle) }),
  ).toEqual({ acked_count: 4 });
});

test('a WebSocket subscriber hears new_message for SQS sends on either pod', async () => {
  const { sqsA, sqsB, auth } = await sqsAccount(pods, 'ws');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'live' }));
  const sub = await subscribe(pods.a, '/v1/relay/channels/live/messages/subscribe', auth);
  await sqsB.send(new SendMessageCommand({ QueueUrl, MessageBody: 'ping' }));
  await sub.waitFor(newMessage('live'), 5000);
  const from = sub.events.length;
  await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'a', MessageBody: '1' },
        { Id: 'b', MessageBody: '2' },
      ],
    }),
  );
  await sub.waitFor(newMessage('live'), 5000, from);
});
