/** SQS batch actions: per-entry Successful / Failed, and whole-request errors, with the real SDK. */
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { sleep } from '../../helpers/app';
import { sqsAccount, sqsError, useSqsPods } from './support';

const pods = useSqsPods();

test('SendMessageBatch stores the valid entries and reports the others in Failed', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'sendbatch');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'b' }));
  const res = await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'ok-1', MessageBody: 'one' },
        { Id: 'empty', MessageBody: '' },
        {
          Id: 'ok_2',
          MessageBody: 'two',
          DelaySeconds: 0,
          MessageAttributes: { a: { DataType: 'String', StringValue: 'v' } },
        },
        { Id: 'late', MessageBody: 'x', DelaySeconds: 901 },
        {
          Id: 'bad-attr',
          MessageBody: 'x',
          MessageAttributes: { a: { DataType: 'Number', StringValue: 'NaN!' } },
        },
        { Id: 'delayed', MessageBody: 'three', DelaySeconds: 900 },
      ],
    }),
  );
  expect(res.Successful!.map((s) => s.Id)).toEqual(['ok-1', 'ok_2', 'delayed']);
  expect(res.Successful![1].MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
  expect(res.Failed).toEqual([
    {
      Id: 'empty',
      SenderFault: true,
      Code: 'MissingParameter',
      Message: 'The request must contain the parameter MessageBody.',
    },
    {
      Id: 'late',
      SenderFault: true,
      Code: 'InvalidParameterValue',
      Message:
        'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
    },
    {
      Id: 'bad-attr',
      SenderFault: true,
      Code: 'InvalidParameterValue',
      Message: `Message attribute 'a' of type Number must hold a number, got "NaN!".`,
    },
  ]);
  expect((await relay.channel('b')).body.result).toMatchObject({ queued: 2, delayed: 1 });
  const got = await sqsA.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
  expect(got.Messages!.map((m) => [m.MessageId, m.Body])).toEqual([
    [res.Successful![0].MessageId, 'one'],
    [res.Successful![1].MessageId, 'two'],
  ]);
});

test('malformed batches fail as a whole and store nothing', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'badbatch');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'b' }));
  const eleven = Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' }));
  const cases: [object[], string, string][] = [
    [[], 'EmptyBatchRequest', 'There should be at least one entry in the request.'],
    [
      eleven,
      'TooManyEntriesInBatchRequest',
      'Maximum number of entries per request are 10. You have sent 11.',
    ],
    [
      [
        { Id: 'a', MessageBody: 'x' },
        { Id: 'a', MessageBody: 'y' },
      ],
      'BatchEntryIdsNotDistinct',
      'Id a repeated.',
    ],
    [
      [{ Id: 'has space', MessageBody: 'x' }],
      'InvalidBatchEntryId',
      'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long; got "has space".',
    ],
    [
      [{ Id: 'x'.repeat(81), MessageBody: 'x' }],
      'InvalidBatchEntryId',
      `A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long; got "${'x'.repeat(81)}".`,
    ],
  ];
  for (const [Entries, name, message] of cases) {
    const err = await sqsError(
      sqsA.send(new SendMessageBatchCommand({ QueueUrl, Entries: Entries as never })),
    );
    expect({ name: err.name, message: err.message, status: err.status }).toEqual({
      name,
      message,
      status: 400,
    });
  }
  const ten = await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: eleven
        .slice(0, 10)
        .map((e) => ({ ...e, Id: `${'i'.repeat(78)}${e.Id}`.slice(-80) })),
    }),
  );
  expect(ten.Successful).toHaveLength(10);
  expect((await relay.channel('b')).body.result.queued).toBe(10);
  for (const command of [
    new DeleteMessageBatchCommand({ QueueUrl, Entries: [] }),
    new ChangeMessageVisibilityBatchCommand({ QueueUrl, Entries: [] }),
  ]) {
    expect(await sqsError(sqsA.send(command as never))).toMatchObject({
      name: 'EmptyBatchRequest',
    });
  }
});

test('a SendMessageBatch over 1 MiB in all (SQS sizes) is BatchRequestTooLong and stores nothing', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'bigbatch', { plan: 'paid' });
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'big' }));
  // four messages of 262144 bytes (the plan's max_sqs_message_bytes): 1048576 in all, the limit
  const entry = (i: number) => ({ Id: `e${i}`, MessageBody: 'x'.repeat(262_144) });
  const fits = await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: Array.from({ length: 4 }, (_, i) => entry(i)),
    }),
  );
  expect(fits.Successful).toHaveLength(4);
  // ten of them, 2.5 MiB: the request is read, and refused as SQS refuses it
  const over = await sqsError(
    sqsA.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: Array.from({ length: 10 }, (_, i) => entry(i)),
      }),
    ),
  );
  expect(over).toMatchObject({
    name: 'BatchRequestTooLong',
    status: 400,
    message:
      'Batch requests cannot be longer than 1048576 bytes (bodies and message attributes of its messages); this one is 2621440 bytes.',
  });
  expect((await relay.channel('big')).body.result.queued).toBe(4);
});

test('DeleteMessageBatch deletes by receipt handle; a malformed handle fails its entry only', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'delbatch');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'b' }));
  await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [1, 2, 3].map((i) => ({ Id: `m${i}`, MessageBody: `${i}` })),
    }),
  );
  const got = (await sqsA.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 })))
    .Messages!;
  const res = await sqsA.send(
    new DeleteMessageBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'a', ReceiptHandle: got[0].ReceiptHandle },
        { Id: 'b', ReceiptHandle: 'garbage' },
        { Id: 'c', ReceiptHandle: got[2].ReceiptHandle },
      ],
    }),
  );
  expect(res.Successful).toEqual([{ Id: 'a' }, { Id: 'c' }]);
  expect(res.Failed).toEqual([
    {
      Id: 'b',
      SenderFault: true,
      Code: 'ReceiptHandleIsInvalid',
      Message: 'The input receipt handle "garbage" is not a valid receipt handle.',
    },
  ]);
  expect((await relay.channel('b')).body.result).toMatchObject({ queued: 0, in_flight: 1 });
});

test('ChangeMessageVisibilityBatch changes each entry; stale and bad ones fail alone', async () => {
  const { sqsA } = await sqsAccount(pods, 'visbatch');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'b' }));
  await sqsA.send(
    new SendMessageBatchCommand({
      QueueUrl,
      Entries: [1, 2].map((i) => ({ Id: `m${i}`, MessageBody: `${i}` })),
    }),
  );
  const got = (
    await sqsA.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 1 }),
    )
  ).Messages!;
  await sqsA.send(
    new DeleteMessageBatchCommand({
      QueueUrl,
      Entries: [{ Id: 'x', ReceiptHandle: got[1].ReceiptHandle }],
    }),
  );
  const res = await sqsA.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl,
      Entries: [
        { Id: 'keep', ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 30 },
        { Id: 'gone', ReceiptHandle: got[1].ReceiptHandle, VisibilityTimeout: 30 },
        { Id: 'bad', ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 43_201 },
      ],
    }),
  );
  expect(res.Successful).toEqual([{ Id: 'keep' }]);
  expect(res.Failed!.map((f) => [f.Id, f.Code])).toEqual([
    ['gone', 'MessageNotInflight'],
    ['bad', 'InvalidParameterValue'],
  ]);
  await sleep(1200);
  expect((await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  const back = await sqsA.send(
    new ChangeMessageVisibilityBatchCommand({
      QueueUrl,
      Entries: [{ Id: 'now', ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 0 }],
    }),
  );
  expect(back.Successful).toEqual([{ Id: 'now' }]);
  expect(
    (await sqsA.send(new ReceiveMessageCommand({ QueueUrl }))).Messages!.map((m) => m.Body),
  ).toEqual(['1']);
});
