/** SQS protocol: send, receive, delete and visibility with the real @aws-sdk/client-sqs. */
import crypto from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sleep } from '../../helpers/app';
import { sqsAccount, sqsError, useSqsPods } from './support';

const pods = useSqsPods();

async function queue(sqs: SQSClient, name = 'orders', Attributes?: Record<string, string>) {
  return (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes }))).QueueUrl!;
}

test('SendMessage, ReceiveMessage and DeleteMessage round-trip a message', async () => {
  const { sqsA, sqsB, urlOf } = await sqsAccount(pods, 'msg');
  const QueueUrl = await queue(sqsA);
  expect(QueueUrl).toBe(urlOf('orders'));
  const sentAt = Date.now();
  const sent = await sqsA.send(
    new SendMessageCommand({ QueueUrl, MessageBody: 'hello ünïcode 🎉' }),
  );
  expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
  expect(sent.MD5OfMessageBody).toBe(
    crypto.createHash('md5').update('hello ünïcode 🎉', 'utf8').digest('hex'),
  );
  const received = await sqsB.send(
    new ReceiveMessageCommand({
      QueueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  expect(received.Messages).toHaveLength(1);
  const [m] = received.Messages!;
  expect(m.Body).toBe('hello ünïcode 🎉');
  expect(m.MessageId).toBe(sent.MessageId);
  expect(m.MD5OfBody).toBe(sent.MD5OfMessageBody);
  expect(m.Attributes).toEqual({
    ApproximateReceiveCount: '1',
    SentTimestamp: expect.stringMatching(/^\d{13}$/),
    ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
  });
  expect(Math.abs(Number(m.Attributes!.SentTimestamp) - sentAt)).toBeLessThan(5000);
  await sqsA.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
  const after = await sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  expect(after.Messages).toBeUndefined();
  // deleting again with the same (now stale) handle succeeds, as in SQS
  await sqsA.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
});

test('SendMessage checks its parameters as SQS does', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'sendbad');
  const QueueUrl = await queue(sqsA);
  const cases: [object, string, string][] = [
    [
      { MessageBody: '' },
      'MissingParameter',
      'The request must contain the parameter MessageBody.',
    ],
    [
      { MessageBody: 'x', DelaySeconds: 901 },
      'InvalidParameterValue',
      'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
    ],
    [
      { MessageBody: 'x', DelaySeconds: -1 },
      'InvalidParameterValue',
      'Value -1 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
    ],
    [
      { MessageBody: 'bad \u0001 char' },
      'InvalidMessageContents',
      'Invalid characters found in MessageBody: only #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF are allowed.',
    ],
    [
      { MessageBody: 'x'.repeat(262_145) },
      'InvalidParameterValue',
      'messages[0] is 262145 bytes, over its limit of 262144 bytes (max_sqs_message_bytes)',
    ],
    [
      { MessageBody: 'x', MessageDeduplicationId: 'd'.repeat(129) },
      'InvalidParameterValue',
      'MessageDeduplicationId must be 1 to 128 characters.',
    ],
  ];
  for (const [input, name, message] of cases) {
    const err = await sqsError(sqsA.send(new SendMessageCommand({ QueueUrl, ...input } as never)));
    expect({ name: err.name, message: err.message }).toEqual({ name, message });
  }
  // the largest body that fits: the plan's max_sqs_message_bytes (SQS's 256 KiB)
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(262_144) }));
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'y', DelaySeconds: 900 }));
  expect((await relay.channel('orders')).body.result).toMatchObject({ queued: 1, delayed: 1 });
});

test('message attributes: String, Number, Binary and custom types are kept; names select them', async () => {
  const { sqsA } = await sqsAccount(pods, 'mattrs');
  const QueueUrl = await queue(sqsA);
  const MessageAttributes = {
    'trace.id': { DataType: 'String', StringValue: 'abc' },
    'trace.span': { DataType: 'Number', StringValue: '-12.5e3' },
    blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 254, 255]) },
    kind: { DataType: 'String.custom', StringValue: 'ünï' },
  };
  const sent = await sqsA.send(
    new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageAttributes }),
  );
  expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
  const all = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ['All'], VisibilityTimeout: 0 }),
  );
  const [m] = all.Messages!;
  expect(m.MessageAttributes).toEqual({
    'trace.id': { DataType: 'String', StringValue: 'abc' },
    'trace.span': { DataType: 'Number', StringValue: '-12.5e3' },
    blob: { DataType: 'Binary', BinaryValue: new Uint8Array([0, 1, 254, 255]) },
    kind: { DataType: 'String.custom', StringValue: 'ünï' },
  });
  expect(m.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
  const prefix = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl,
      MessageAttributeNames: ['trace.*', 'kind'],
      VisibilityTimeout: 0,
    }),
  );
  expect(Object.keys(prefix.Messages![0].MessageAttributes!).sort()).toEqual([
    'kind',
    'trace.id',
    'trace.span',
  ]);
  expect(prefix.Messages![0].MD5OfMessageAttributes).not.toBe(sent.MD5OfMessageAttributes);
  const none = await sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  expect(none.Messages![0].MessageAttributes).toBeUndefined();
  expect(none.Messages![0].MD5OfMessageAttributes).toBeUndefined();

  const bad: [Record<string, unknown>, string][] = [
    [
      { 'AWS.x': { DataType: 'String', StringValue: 'v' } },
      "Message attribute name 'AWS.x' is invalid: use 1 to 256 of A-Z a-z 0-9 _ - ., not starting or ending with a period, without '..', not starting with AWS. or Amazon.",
    ],
    [
      { 'a..b': { DataType: 'String', StringValue: 'v' } },
      "Message attribute name 'a..b' is invalid: use 1 to 256 of A-Z a-z 0-9 _ - ., not starting or ending with a period, without '..', not starting with AWS. or Amazon.",
    ],
    [
      { n: { DataType: 'Number', StringValue: 'ten' } },
      `Message attribute 'n' of type Number must hold a number, got "ten".`,
    ],
    [
      { s: { DataType: 'String', StringValue: '' } },
      "Message attribute 's' must contain a non-empty StringValue for type String.",
    ],
    [
      { t: { DataType: 'Date', StringValue: 'x' } },
      "Message attribute 't' must have a DataType of String, Number or Binary (optionally with a .custom suffix).",
    ],
    [
      Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [`a${i}`, { DataType: 'String', StringValue: 'v' }]),
      ),
      'Number of message attributes [11] exceeds the allowed maximum [10].',
    ],
  ];
  for (const [attrs, message] of bad) {
    const err = await sqsError(
      sqsA.send(
        new SendMessageCommand({ QueueUrl, MessageBody: 'x', MessageAttributes: attrs as never }),
      ),
    );
    expect({ name: err.name, message: err.message }).toEqual({
      name: 'InvalidParameterValue',
      message,
    });
  }
});

test('ReceiveMessage checks MaxNumberOfMessages, VisibilityTimeout and WaitTimeSeconds', async () => {
  const { sqsA } = await sqsAccount(pods, 'recvbad');
  const QueueUrl = await queue(sqsA);
  const cases: [object, string][] = [
    [
      { MaxNumberOfMessages: 0 },
      'Value 0 for parameter MaxNumberOfMessages is invalid. Reason: must be between 1 and 10, if provided.',
    ],
    [
      { MaxNumberOfMessages: 11 },
      'Value 11 for parameter MaxNumberOfMessages is invalid. Reason: must be between 1 and 10, if provided.',
    ],
    [
      { VisibilityTimeout: 43_201 },
      'Value 43201 for parameter VisibilityTimeout is invalid. Reason: must be between 0 and 43200, if provided.',
    ],
    [
      { WaitTimeSeconds: 21 },
      'Value 21 for parameter WaitTimeSeconds is invalid. Reason: must be between 0 and 20, if provided.',
    ],
  ];
  for (const [input, message] of cases) {
    const err = await sqsError(
      sqsA.send(new ReceiveMessageCommand({ QueueUrl, ...input } as never)),
    );
    expect({ name: err.name, message: err.message }).toEqual({
      name: 'InvalidParameterValue',
      message,
    });
  }
  for (let i = 0; i < 12; i++)
    await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: `m${i}` }));
  const ten = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  expect(ten.Messages!.map((m) => m.Body)).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  const one = await sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  expect(one.Messages!.map((m) => m.Body)).toEqual(['m10']);
});

test('a visibility timeout that ends returns the message with ApproximateReceiveCount 2', async () => {
  const { sqsA, sqsB } = await sqsAccount(pods, 'vis');
  const QueueUrl = await queue(sqsA);
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'again' }));
  const first = await sqsA.send(
    new ReceiveMessageCommand({
      QueueUrl,
      VisibilityTimeout: 1,
      AttributeNames: ['ApproximateReceiveCount' as never],
    }),
  );
  expect(first.Messages![0].Attributes).toEqual({ ApproximateReceiveCount: '1' });
  expect((await sqsB.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  await sleep(1200);
  const second = await sqsB.send(
    new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ['All'] }),
  );
  const m = second.Messages![0];
  expect(m.Body).toBe('again');
  expect(m.Attributes!.ApproximateReceiveCount).toBe('2');
  // relayq keeps no first-receive time: it is given on the first receive only (docs/sqs.md)
  expect(m.Attributes!.ApproximateFirstReceiveTimestamp).toBeUndefined();
  // the first receipt handle is stale now: delete ignores it, visibility change refuses it
  await sqsA.send(
    new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.Messages![0].ReceiptHandle }),
  );
  expect(
    await sqsError(
      sqsA.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: first.Messages![0].ReceiptHandle,
          VisibilityTimeout: 10,
        }),
      ),
    ),
  ).toMatchObject({ name: 'MessageNotInflight', status: 400 });
  await sqsB.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
});

test("the queue's VisibilityTimeout applies when ReceiveMessage sets none", async () => {
  const { sqsA } = await sqsAccount(pods, 'qvis');
  const QueueUrl = await queue(sqsA, 'short', { VisibilityTimeout: '1' });
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
  await sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  await sleep(1200);
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toHaveLength(1);
});

test("the queue's DelaySeconds applies when SendMessage sets none; 0 overrides it", async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'qdelay');
  const QueueUrl = await queue(sqsA, 'slow', { DelaySeconds: '60' });
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'waits' }));
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'now', DelaySeconds: 0 }));
  const got = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  expect(got.Messages!.map((m) => m.Body)).toEqual(['now']);
  expect((await relay.channel('slow')).body.result).toMatchObject({ delayed: 1, in_flight: 1 });
});

test('ChangeMessageVisibility 0 returns the message at once; more extends the lease', async () => {
  const { sqsA } = await sqsAccount(pods, 'chvis');
  const QueueUrl = await queue(sqsA);
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
  const first = (await sqsA.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 1 })))
    .Messages![0];
  await sqsA.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl,
      ReceiptHandle: first.ReceiptHandle,
      VisibilityTimeout: 30,
    }),
  );
  await sleep(1200);
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  await sqsA.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl,
      ReceiptHandle: first.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const again = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, AttributeNames: ['All'] }));
  expect(again.Messages![0].Attributes!.ApproximateReceiveCount).toBe('2');
  const cases: [object, string, string][] = [
    [
      { ReceiptHandle: 'nonsense', VisibilityTimeout: 1 },
      'ReceiptHandleIsInvalid',
      'The input receipt handle "nonsense" is not a valid receipt handle.',
    ],
    [
      { ReceiptHandle: again.Messages![0].ReceiptHandle, VisibilityTimeout: 43_201 },
      'InvalidParameterValue',
      'Value 43201 for parameter VisibilityTimeout is invalid. Reason: must be between 0 and 43200, if provided.',
    ],
    [
      { ReceiptHandle: again.Messages![0].ReceiptHandle },
      'MissingParameter',
      'The request must contain the parameter VisibilityTimeout.',
    ],
  ];
  for (const [input, name, message] of cases) {
    const err = await sqsError(
      sqsA.send(new ChangeMessageVisibilityCommand({ QueueUrl, ...input } as never)),
    );
    expect({ name: err.name, message: err.message }).toEqual({ name, message });
  }
  expect(
    await sqsError(sqsA.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: 'nonsense' }))),
  ).toMatchObject({ name: 'ReceiptHandleIsInvalid', status: 404 });
});

test('WaitTimeSeconds waits on the long poll and wakes on a send from the other pod', async () => {
  const { sqsA, sqsB } = await sqsAccount(pods, 'poll');
  const QueueUrl = await queue(sqsA);
  const started = Date.now();
  const waiting = sqsA.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 10 }));
  await sleep(300);
  await sqsB.send(new SendMessageCommand({ QueueUrl, MessageBody: 'wake up' }));
  const got = await waiting;
  const ms = Date.now() - started;
  expect(got.Messages!.map((m) => m.Body)).toEqual(['wake up']);
  expect(ms).toBeGreaterThanOrEqual(250);
  expect(ms).toBeLessThan(5000);
  const emptyStart = Date.now();
  const empty = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
  expect(empty.Messages).toBeUndefined();
  expect(Date.now() - emptyStart).toBeGreaterThanOrEqual(900);
});

test("the queue's ReceiveMessageWaitTimeSeconds makes a receive without WaitTimeSeconds wait", async () => {
  const { sqsA, sqsB } = await sqsAccount(pods, 'qwait');
  const QueueUrl = await queue(sqsA, 'patient', { ReceiveMessageWaitTimeSeconds: '10' });
  const waiting = sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  await sleep(300);
  await sqsB.send(new SendMessageCommand({ QueueUrl, MessageBody: 'here' }));
  expect((await waiting).Messages!.map((m) => m.Body)).toEqual(['here']);
  const start = Date.now();
  await sqsA.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));
  expect(Date.now() - start).toBeLessThan(900);
});

test('after maxReceiveCount receives the message moves to the dead-letter queue', async () => {
  const { id, sqsA, relay } = await sqsAccount(pods, 'dlq');
  const dead = await queue(sqsA, 'dead');
  const QueueUrl = await queue(sqsA, 'work', {
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: `arn:aws:sqs:us-east-1:${id}:dead`,
      maxReceiveCount: 2,
    }),
  });
  const sent = await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
  for (let i = 1; i <= 2; i++) {
    const got = await sqsA.send(
      new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0, AttributeNames: ['All'] }),
    );
    expect(got.Messages![0].Attributes!.ApproximateReceiveCount).toBe(String(i));
  }
  // the third receive finds it past maxReceiveCount: moved, not delivered
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  const moved = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl: dead, MessageSystemAttributeNames: ['All'] }),
  );
  expect(moved.Messages![0]).toMatchObject({ MessageId: sent.MessageId, Body: 'poison' });
  expect(moved.Messages![0].Attributes).toMatchObject({
    ApproximateReceiveCount: '1',
    DeadLetterQueueSourceArn: `arn:aws:sqs:us-east-1:${id}:work`,
  });
  expect((await relay.channel('work')).body.result).toMatchObject({ queued: 0, in_flight: 0 });
});

test('MessageDeduplicationId uses the channel dedup window: the same id answers the first message', async () => {
  const { sqsA } = await sqsAccount(pods, 'dedup');
  const QueueUrl = await queue(sqsA);
  const one = await sqsA.send(
    new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageDeduplicationId: 'k1' }),
  );
  const two = await sqsA.send(
    new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageDeduplicationId: 'k1' }),
  );
  expect(two.MessageId).toBe(one.MessageId);
  const got = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  expect(got.Messages).toHaveLength(1);
});

test('an unknown queue is QueueDoesNotExist for every message action', async () => {
  const { sqsA, urlOf } = await sqsAccount(pods, 'noq');
  const QueueUrl = urlOf('nope');
  const calls = [
    sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' })),
    sqsA.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 })),
    sqsA.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: 'x' })),
    sqsA.send(
      new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: 'x', VisibilityTimeout: 1 }),
    ),
  ];
  for (const call of calls) {
    expect(await sqsError(call)).toMatchObject({
      name: 'QueueDoesNotExist',
      status: 400,
      message: 'The specified queue does not exist: nope.',
    });
  }
});

test('an attribute named __proto__ is kept like any other, with its MD5 right', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'proto');
  const QueueUrl = await queue(sqsA);
  // JSON.parse makes __proto__ an own key, as the SDK sends it; the SDK checks the MD5
  const MessageAttributes = JSON.parse(
    '{"__proto__":{"DataType":"String","StringValue":"p"},"constructor":{"DataType":"Number","StringValue":"1"}}',
  ) as Record<string, { DataType: string; StringValue: string }>;
  const sent = await sqsA.send(
    new SendMessageCommand({ QueueUrl, MessageBody: 'a', MessageAttributes }),
  );
  const got = await sqsA.send(
    new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ['All'], VisibilityTimeout: 0 }),
  );
  const [m] = got.Messages!;
  expect(m.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
  expect(Object.keys(m.MessageAttributes ?? {}).sort()).toEqual(['__proto__', 'constructor']);
  // stored under its own name, as sent
  const [stored] = (await relay.pullOk('orders')).messages;
  expect(JSON.stringify(stored.metadata)).toContain(
    '"__proto__":{"DataType":"String","StringValue":"p"}',
  );
});
