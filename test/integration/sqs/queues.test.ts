/** SQS queue actions over channels, with the real @aws-sdk/client-sqs. */
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueueTagsCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from '@aws-sdk/client-sqs';
import { signedRequest, sqsAccount, sqsError, useSqsPods } from './support';

const pods = useSqsPods();

test('CreateQueue is idempotent; different attributes are QueueNameExists', async () => {
  const { sqsA, sqsB, urlOf, relay } = await sqsAccount(pods, 'create');
  const attrs = { VisibilityTimeout: '45', DelaySeconds: '5' };
  const first = await sqsA.send(new CreateQueueCommand({ QueueName: 'jobs', Attributes: attrs }));
  const again = await sqsB.send(new CreateQueueCommand({ QueueName: 'jobs', Attributes: attrs }));
  expect(first.QueueUrl).toBe(urlOf('jobs'));
  expect(again.QueueUrl).toBe(urlOf('jobs').replace(pods.a.baseUrl, pods.b.baseUrl));
  const plain = await sqsA.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  expect(plain.QueueUrl).toBe(urlOf('jobs'));
  const conflict = await sqsError(
    sqsA.send(
      new CreateQueueCommand({ QueueName: 'jobs', Attributes: { VisibilityTimeout: '46' } }),
    ),
  );
  expect(conflict).toMatchObject({
    name: 'QueueNameExists',
    status: 400,
    message:
      'A queue already exists with the same name and a different value for attribute VisibilityTimeout.',
  });
  // the queue is a channel with those settings
  const channel = await relay.channel('jobs');
  expect(channel.body.result.config).toMatchObject({
    visibility_timeout_ms: 45000,
    delay_seconds: 5,
    // SQS redelivers without a limit when there is no redrive policy: relayq's most
    max_attempts: 100,
    dead_letter_channel: null,
  });
});

test('queue names follow the channel id rules', async () => {
  const { sqsA } = await sqsAccount(pods, 'names');
  for (const name of ['.hidden', 'has space', 'x'.repeat(129), 'slash/no']) {
    expect(await sqsError(sqsA.send(new CreateQueueCommand({ QueueName: name })))).toMatchObject({
      name: 'InvalidParameterValue',
      status: 400,
      message:
        'QueueName must be 1 to 128 characters of A-Z a-z 0-9 _ - . and must not start with a dot.',
    });
  }
  const edge = await sqsA.send(new CreateQueueCommand({ QueueName: 'a'.repeat(128) }));
  expect(edge.QueueUrl).toMatch(/\/a{128}$/);
  expect(await sqsError(sqsA.send(new CreateQueueCommand({ QueueName: '' })))).toMatchObject({
    name: 'MissingParameter',
  });
});

test('CreateQueue refuses bad and unsupported attributes, FIFO and bad tags, and creates nothing', async () => {
  const { sqsA, relay } = await sqsAccount(pods, 'attrs');
  const cases: [Record<string, string>, string, string][] = [
    [
      { VisibilityTimeout: '43201' },
      'InvalidAttributeValue',
      'Invalid value for the parameter VisibilityTimeout: "43201" must be a whole number from 0 to 43200.',
    ],
    [
      { DelaySeconds: '901' },
      'InvalidAttributeValue',
      'Invalid value for the parameter DelaySeconds: "901" must be a whole number from 0 to 900.',
    ],
    [
      { DelaySeconds: '1.5' },
      'InvalidAttributeValue',
      'Invalid value for the parameter DelaySeconds: "1.5" must be a whole number from 0 to 900.',
    ],
    [
      { MessageRetentionPeriod: '59' },
      'InvalidAttributeValue',
      `Invalid value for the parameter MessageRetentionPeriod: "59" must be a whole number from 60 to 259200 (the plan's retention).`,
    ],
    [
      { MessageRetentionPeriod: '259201' },
      'InvalidAttributeValue',
      `Invalid value for the parameter MessageRetentionPeriod: "259201" must be a whole number from 60 to 259200 (the plan's retention).`,
    ],
    [
      { ReceiveMessageWaitTimeSeconds: '21' },
      'InvalidAttributeValue',
      'Invalid value for the parameter ReceiveMessageWaitTimeSeconds: "21" must be a whole number from 0 to 20.',
    ],
    [
      { MaximumMessageSize: '262145' },
      'InvalidAttributeValue',
      `Invalid value for the parameter MaximumMessageSize: "262145" must be a whole number from 1024 to 262144 (the plan's max_sqs_message_bytes).`,
    ],
    [{ Colour: 'blue' }, 'InvalidAttributeName', 'Unknown Attribute Colour.'],
    [
      { Policy: '{}' },
      'UnsupportedOperation',
      'Queue attribute Policy is not supported by relayq.',
    ],
    // FifoQueue on a name without .fifo (docs/sqs.md: FIFO queues)
    [
      { FifoQueue: 'true' },
      'InvalidParameterValue',
      'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
    ],
  ];
  for (const [Attributes, name, message] of cases) {
    const err = await sqsError(sqsA.send(new CreateQueueCommand({ QueueName: 'q', Attributes })));
    expect({ attrs: Attributes, name: err.name, message: err.message }).toEqual({
      attrs: Attributes,
      name,
      message,
    });
  }
  const tagged = await sqsError(
    sqsA.send(new CreateQueueCommand({ QueueName: 'q', tags: { ['k'.repeat(129)]: 'x' } })),
  );
  expect(tagged).toMatchObject({ name: 'InvalidParameterValue', status: 400 });
  expect((await relay.channel('q')).status).toBe(404);
  // the edges are accepted
  await sqsA.send(
    new CreateQueueCommand({
      QueueName: 'edges',
      Attributes: {
        VisibilityTimeout: '0',
        DelaySeconds: '900',
        MessageRetentionPeriod: '60',
        ReceiveMessageWaitTimeSeconds: '20',
        MaximumMessageSize: '1024',
        FifoQueue: 'false',
      },
    }),
  );
  expect((await relay.channel('edges')).body.result.config).toMatchObject({
    visibility_timeout_ms: 0,
    delay_seconds: 900,
    retention_seconds: 60,
    receive_wait_seconds: 20,
  });
});

test('GetQueueUrl finds a queue (also one made by a relay send); unknown is QueueDoesNotExist', async () => {
  const { id, sqsA, urlOf, relay } = await sqsAccount(pods, 'url');
  await relay.sendOk('from-relay', { body: 1 });
  expect((await sqsA.send(new GetQueueUrlCommand({ QueueName: 'from-relay' }))).QueueUrl).toBe(
    urlOf('from-relay'),
  );
  expect(
    (
      await sqsA.send(
        new GetQueueUrlCommand({ QueueName: 'from-relay', QueueOwnerAWSAccountId: id }),
      )
    ).QueueUrl,
  ).toBe(urlOf('from-relay'));
  expect(await sqsError(sqsA.send(new GetQueueUrlCommand({ QueueName: 'missing' })))).toMatchObject(
    {
      name: 'QueueDoesNotExist',
      status: 400,
      code: 'AWS.SimpleQueueService.NonExistentQueue',
    },
  );
  expect(
    await sqsError(
      sqsA.send(
        new GetQueueUrlCommand({ QueueName: 'from-relay', QueueOwnerAWSAccountId: 'other' }),
      ),
    ),
  ).toMatchObject({ name: 'AccessDenied' });
});

test('ListQueues filters by prefix and pages with MaxResults and NextToken', async () => {
  const { sqsA, urlOf } = await sqsAccount(pods, 'list', { plan: 'paid' });
  const names = ['app-a', 'app-b', 'app-c', 'app-d', 'app-e', 'other'];
  for (const QueueName of names) await sqsA.send(new CreateQueueCommand({ QueueName }));
  const all = await sqsA.send(new ListQueuesCommand({}));
  expect(all.QueueUrls).toEqual(names.map(urlOf));
  expect(all.NextToken).toBeUndefined();
  const pages: string[][] = [];
  let NextToken: string | undefined;
  do {
    const page = await sqsA.send(
      new ListQueuesCommand({ QueueNamePrefix: 'app-', MaxResults: 2, NextToken }),
    );
    pages.push(page.QueueUrls ?? []);
    NextToken = page.NextToken;
  } while (NextToken);
  expect(pages).toEqual([
    [urlOf('app-a'), urlOf('app-b')],
    [urlOf('app-c'), urlOf('app-d')],
    [urlOf('app-e')],
  ]);
  const none = await sqsA.send(new ListQueuesCommand({ QueueNamePrefix: 'zzz' }));
  expect(none.QueueUrls).toBeUndefined();
  for (const MaxResults of [0, 1001]) {
    expect(await sqsError(sqsA.send(new ListQueuesCommand({ MaxResults })))).toMatchObject({
      name: 'InvalidParameterValue',
      message: `Value ${MaxResults} for parameter MaxResults is invalid. Reason: must be between 1 and 1000, if provided.`,
    });
  }
  expect(
    await sqsError(sqsA.send(new ListQueuesCommand({ MaxResults: 1, NextToken: 'garbage' }))),
  ).toMatchObject({ name: 'InvalidParameterValue', message: 'Invalid NextToken value.' });
});

test('GetQueueAttributes reports counts, settings and ARN; SetQueueAttributes changes them', async () => {
  const { id, sqsA, relay } = await sqsAccount(pods, 'qattrs');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'a' }));
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'b' }));
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'later', DelaySeconds: 60 }));
  await sqsA.send(new ReceiveMessageCommand({ QueueUrl }));
  const before = Math.floor(Date.now() / 1000);
  const { Attributes } = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
  );
  expect(Attributes).toEqual({
    ApproximateNumberOfMessages: '1',
    ApproximateNumberOfMessagesNotVisible: '1',
    ApproximateNumberOfMessagesDelayed: '1',
    CreatedTimestamp: expect.stringMatching(/^\d{10}$/),
    QueueArn: `arn:aws:sqs:us-east-1:${id}:jobs`,
    VisibilityTimeout: '30',
    DelaySeconds: '0',
    MessageRetentionPeriod: '259200',
    ReceiveMessageWaitTimeSeconds: '0',
    MaximumMessageSize: '262144',
    SqsManagedSseEnabled: 'false',
  });
  expect(Math.abs(Number(Attributes!.CreatedTimestamp) - before)).toBeLessThanOrEqual(5);
  const some = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn', 'DelaySeconds'] }),
  );
  expect(some.Attributes).toEqual({
    QueueArn: `arn:aws:sqs:us-east-1:${id}:jobs`,
    DelaySeconds: '0',
  });
  const none = await sqsA.send(new GetQueueAttributesCommand({ QueueUrl }));
  expect(none.Attributes).toBeUndefined();
  expect(
    await sqsError(
      sqsA.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['Nope' as never] })),
    ),
  ).toMatchObject({ name: 'InvalidAttributeName', message: 'Unknown Attribute Nope.' });

  await sqsA.send(
    new SetQueueAttributesCommand({
      QueueUrl,
      Attributes: {
        VisibilityTimeout: '120',
        DelaySeconds: '3',
        MessageRetentionPeriod: '3600',
        ReceiveMessageWaitTimeSeconds: '7',
      },
    }),
  );
  const after = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
  );
  expect(after.Attributes).toMatchObject({
    VisibilityTimeout: '120',
    DelaySeconds: '3',
    MessageRetentionPeriod: '3600',
    ReceiveMessageWaitTimeSeconds: '7',
  });
  // the same settings through the relay API, and back
  expect((await relay.channel('jobs')).body.result.config).toMatchObject({
    visibility_timeout_ms: 120000,
    delay_seconds: 3,
    retention_seconds: 3600,
    receive_wait_seconds: 7,
  });
  await relay.configure('jobs', { visibility_timeout_ms: 5000, receive_wait_seconds: null });
  const relayed = await sqsA.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: ['VisibilityTimeout', 'ReceiveMessageWaitTimeSeconds'],
    }),
  );
  expect(relayed.Attributes).toEqual({
    VisibilityTimeout: '5',
    ReceiveMessageWaitTimeSeconds: '0',
  });
  expect(
    await sqsError(sqsA.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: undefined }))),
  ).toMatchObject({ name: 'MissingParameter' });
});

test('RedrivePolicy sets the dead-letter channel and max attempts; empty removes it', async () => {
  const { id, sqsA, relay } = await sqsAccount(pods, 'redrive');
  const dlq = await sqsA.send(new CreateQueueCommand({ QueueName: 'dead' }));
  const arn = `arn:aws:sqs:us-east-1:${id}:dead`;
  const policy = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 4 });
  const { QueueUrl } = await sqsA.send(
    new CreateQueueCommand({ QueueName: 'work', Attributes: { RedrivePolicy: policy } }),
  );
  expect((await relay.channel('work')).body.result.config).toMatchObject({
    dead_letter_channel: 'dead',
    max_attempts: 4,
  });
  const got = await sqsA.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  expect(JSON.parse(got.Attributes!.RedrivePolicy!)).toEqual({
    deadLetterTargetArn: arn,
    maxReceiveCount: 4,
  });
  const sources = await sqsA.send(
    new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.QueueUrl }),
  );
  expect(sources.queueUrls).toEqual([QueueUrl]);
  // same policy again: idempotent; maxReceiveCount as a string, as the console writes it
  await sqsA.send(
    new CreateQueueCommand({
      QueueName: 'work',
      Attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: '4' }),
      },
    }),
  );
  const bad: [string, string][] = [
    ['not json', 'Redrive policy is not a valid JSON map.'],
    [
      JSON.stringify({ deadLetterTargetArn: 'arn:nope', maxReceiveCount: 1 }),
      'Invalid value for deadLetterTargetArn.',
    ],
    [
      JSON.stringify({
        deadLetterTargetArn: `arn:aws:sqs:us-east-1:${id}:ghost`,
        maxReceiveCount: 1,
      }),
      'Dead letter target does not exist.',
    ],
    [
      JSON.stringify({
        deadLetterTargetArn: `arn:aws:sqs:us-east-1:someone:dead`,
        maxReceiveCount: 1,
      }),
      'Dead-letter target must be a queue of the same account.',
    ],
    [
      JSON.stringify({
        deadLetterTargetArn: `arn:aws:sqs:us-east-1:${id}:work`,
        maxReceiveCount: 1,
      }),
      'Dead-letter target must be another queue.',
    ],
    [
      JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 101 }),
      'maxReceiveCount must be a whole number from 1 to 100.',
    ],
    [
      JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 0 }),
      'maxReceiveCount must be a whole number from 1 to 100.',
    ],
  ];
  for (const [value, reason] of bad) {
    const err = await sqsError(
      sqsA.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { RedrivePolicy: value } })),
    );
    expect(err).toMatchObject({
      name: 'InvalidParameterValue',
      message: `Value ${value} for parameter RedrivePolicy is invalid. Reason: ${reason}`,
    });
  }
  await sqsA.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { RedrivePolicy: '' } }));
  expect((await relay.channel('work')).body.result.config).toMatchObject({
    dead_letter_channel: null,
    max_attempts: 100,
  });
});

test('PurgeQueue empties the queue; DeleteQueue deletes the channel and its messages', async () => {
  const { sqsA, sqsB, relay } = await sqsAccount(pods, 'purge');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'bin' }));
  for (let i = 0; i < 3; i++)
    await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: `m${i}` }));
  await sqsB.send(new PurgeQueueCommand({ QueueUrl }));
  expect((await relay.channel('bin')).body.result).toMatchObject({ queued: 0, in_flight: 0 });
  await sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
  await sqsB.send(new DeleteQueueCommand({ QueueUrl }));
  expect((await relay.channel('bin')).status).toBe(404);
  expect(await sqsError(sqsA.send(new DeleteQueueCommand({ QueueUrl })))).toMatchObject({
    name: 'QueueDoesNotExist',
  });
  expect(await sqsError(sqsA.send(new PurgeQueueCommand({ QueueUrl })))).toMatchObject({
    name: 'QueueDoesNotExist',
  });
  expect(
    await sqsError(sqsA.send(new PurgeQueueCommand({ QueueUrl: 'http://x/not-a-queue' }))),
  ).toMatchObject({ name: 'InvalidAddress', status: 404 });
});

test('a request posted to the queue URL itself is answered too', async () => {
  const { keys, sqsA, id } = await sqsAccount(pods, 'posturl');
  await sqsA.send(new CreateQueueCommand({ QueueName: 'q' }));
  const res = await signedRequest(
    pods.a,
    keys,
    'AmazonSQS.GetQueueAttributes',
    JSON.stringify({ QueueUrl: `${pods.a.baseUrl}/sqs/${id}/q`, AttributeNames: ['QueueArn'] }),
    { path: `/sqs/${id}/q` },
  );
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ Attributes: { QueueArn: `arn:aws:sqs:us-east-1:${id}:q` } });
});

test("past the plan's channel limit, CreateQueue is OverLimit", async () => {
  const { sqsA } = await sqsAccount(pods, 'limit');
  for (let i = 0; i < 5; i++) await sqsA.send(new CreateQueueCommand({ QueueName: `q${i}` }));
  expect(await sqsError(sqsA.send(new CreateQueueCommand({ QueueName: 'q5' })))).toMatchObject({
    name: 'OverLimit',
    status: 403,
    message: 'channel limit reached: the plan allows at most 5 channels',
  });
});

test('the JS SDK: tags, encryption attributes, ALL and a queue URL on another pod', async () => {
  const { sqsA, sqsB, id } = await sqsAccount(pods, 'sdkextra');
  const { QueueUrl } = await sqsA.send(
    new CreateQueueCommand({
      QueueName: 'enc',
      Attributes: { KmsMasterKeyId: 'alias/aws/sqs', SqsManagedSseEnabled: 'false' },
      tags: { team: 'payments' },
    }),
  );
  await sqsB.send(new TagQueueCommand({ QueueUrl, Tags: { env: 'prod' } }));
  await sqsA.send(new UntagQueueCommand({ QueueUrl, TagKeys: ['team'] }));
  expect((await sqsB.send(new ListQueueTagsCommand({ QueueUrl }))).Tags).toEqual({ env: 'prod' });
  const { Attributes } = await sqsB.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ALL' as never] }),
  );
  expect(Attributes).toMatchObject({
    QueueArn: `arn:aws:sqs:us-east-1:${id}:enc`,
    KmsMasterKeyId: 'alias/aws/sqs',
    KmsDataKeyReusePeriodSeconds: '300',
    SqsManagedSseEnabled: 'false',
    MaximumMessageSize: '262144',
  });
  // the same attributes again: the same queue
  const again = await sqsA.send(
    new CreateQueueCommand({
      QueueName: 'enc',
      Attributes: { KmsMasterKeyId: 'alias/aws/sqs', SqsManagedSseEnabled: 'FALSE' },
    }),
  );
  expect(again.QueueUrl).toBe(QueueUrl);
});
