/**
 * One table of cases, every action relayq supports with the JSON tests' edge
 * values, run through both of relayq's SQS translators: the JSON protocol and
 * the query protocol (form parameters in, XML out). Each case sees the same
 * answers, in its protocol's shape.
 */
import crypto from 'node:crypto';
import type { ListeningApp } from '../../helpers/app';
import { callSqs, type CallOptions, type Protocol, type SqsAnswer } from './protocolClients';
import { sqsAccount, useSqsPods, type AwsKeys } from './support';

const pods = useSqsPods();

type Output = Record<string, unknown> & {
  QueueUrl?: string;
  Messages?: Record<string, unknown>[];
  Attributes?: Record<string, string>;
  Successful?: Record<string, unknown>[];
  Failed?: Record<string, unknown>[];
};

interface Case {
  id: string;
  keys: AwsKeys;
  urlOf(queue: string): string;
  /** the call's answer, whatever it is */
  call(action: string, input?: Record<string, unknown>, options?: CallOptions): Promise<SqsAnswer>;
  /** the output of a call that must succeed */
  ok(action: string, input?: Record<string, unknown>, options?: CallOptions): Promise<Output>;
  /** the status, query code and message of a call that must fail */
  fails(
    action: string,
    input?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<{ status: number; code: string; message: string }>;
  queue(name?: string, Attributes?: Record<string, string>): Promise<string>;
}

async function caseFor(protocol: Protocol, app: ListeningApp = pods.a): Promise<Case> {
  const account = await sqsAccount(pods, `p${protocol}`, { plan: 'paid' });
  const call = (action: string, input: Record<string, unknown> = {}, options?: CallOptions) =>
    callSqs(protocol, app, account.keys, action, input, options);
  const c: Case = {
    id: account.id,
    keys: account.keys,
    urlOf: account.urlOf,
    call,
    async ok(action, input, options) {
      const answer = await call(action, input, options);
      if (answer.status !== 200) throw new Error(`${action}: ${answer.status} ${answer.raw}`);
      return answer.output as Output;
    },
    async fails(action, input, options) {
      const answer = await call(action, input, options);
      if (answer.status === 200) throw new Error(`${action} succeeded: ${answer.raw}`);
      return { status: answer.status, code: answer.error!.code, message: answer.error!.message };
    },
    async queue(name = 'q', Attributes) {
      return (await c.ok('CreateQueue', { QueueName: name, Attributes })).QueueUrl!;
    },
  };
  return c;
}

const md5 = (text: string) => crypto.createHash('md5').update(text, 'utf8').digest('hex');
const invalid = (message: string) => ({ status: 400, code: 'InvalidParameterValue', message });
const badAttribute = (message: string) => ({ status: 400, code: 'InvalidAttributeValue', message });
/** every character SQS allows that XML must escape or would normalize, and astral ones */
const AWKWARD_BODY = 'tab\t CR\r LF\n CRLF\r\n <a href="x">&amp;</a> \'q\' ]]> ü 🎉 \uE000\uFFFD';

const CASES: [string, (c: Case) => Promise<void>][] = [
  [
    'CreateQueue: idempotent, the edges of every attribute accepted, each refusal named',
    async (c) => {
      const url = await c.queue('orders');
      expect(url).toBe(c.urlOf('orders'));
      expect(await c.queue('orders')).toBe(url);
      const edges = {
        VisibilityTimeout: '0',
        DelaySeconds: '900',
        MessageRetentionPeriod: '60',
        ReceiveMessageWaitTimeSeconds: '20',
        MaximumMessageSize: '1024',
        FifoQueue: 'false',
      };
      expect(await c.queue('edges', edges)).toBe(c.urlOf('edges'));
      expect(await c.queue('edges', { ...edges, MaximumMessageSize: '1024' })).toBe(
        c.urlOf('edges'),
      );
      expect(
        await c.fails('CreateQueue', { QueueName: 'edges', Attributes: { DelaySeconds: '1' } }),
      ).toEqual({
        status: 400,
        code: 'QueueAlreadyExists',
        message:
          'A queue already exists with the same name and a different value for attribute DelaySeconds.',
      });
      const refused: [Record<string, string>, object][] = [
        [
          { VisibilityTimeout: '43201' },
          badAttribute(
            'Invalid value for the parameter VisibilityTimeout: "43201" must be a whole number from 0 to 43200.',
          ),
        ],
        [
          { MaximumMessageSize: '1023' },
          badAttribute(
            `Invalid value for the parameter MaximumMessageSize: "1023" must be a whole number from 1024 to 262144 (the plan's max_sqs_message_bytes).`,
          ),
        ],
        [
          { MaximumMessageSize: '262145' },
          badAttribute(
            `Invalid value for the parameter MaximumMessageSize: "262145" must be a whole number from 1024 to 262144 (the plan's max_sqs_message_bytes).`,
          ),
        ],
        [
          { KmsDataKeyReusePeriodSeconds: '59' },
          badAttribute(
            'Invalid value for the parameter KmsDataKeyReusePeriodSeconds: "59" must be a whole number from 60 to 86400.',
          ),
        ],
        [
          { SqsManagedSseEnabled: 'yes' },
          badAttribute(
            'Invalid value for the parameter SqsManagedSseEnabled: "yes" must be true or false.',
          ),
        ],
        [
          { KmsMasterKeyId: 'a|b' },
          badAttribute(
            "Invalid value for the parameter KmsMasterKeyId: at most 2048 characters, without '|' or control characters.",
          ),
        ],
        [
          { Colour: 'blue' },
          { status: 400, code: 'InvalidAttributeName', message: 'Unknown Attribute Colour.' },
        ],
        [
          { Policy: '{}' },
          {
            status: 400,
            code: 'AWS.SimpleQueueService.UnsupportedOperation',
            message: 'Queue attribute Policy is not supported by relayq.',
          },
        ],
        [
          { FifoQueue: 'true' },
          {
            status: 400,
            code: 'InvalidParameterValue',
            message:
              'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
          },
        ],
      ];
      for (const [Attributes, error] of refused) {
        expect([Attributes, await c.fails('CreateQueue', { QueueName: 'r', Attributes })]).toEqual([
          Attributes,
          error,
        ]);
      }
      expect(await c.fails('CreateQueue', {})).toEqual({
        status: 400,
        code: 'MissingParameter',
        message: 'The request must contain the parameter QueueName.',
      });
      expect((await c.fails('CreateQueue', { QueueName: 'a b' })).code).toBe(
        'InvalidParameterValue',
      );
      expect((await c.ok('ListQueues')).QueueUrls).toEqual([c.urlOf('edges'), c.urlOf('orders')]);
    },
  ],
  [
    'GetQueueUrl and ListQueues: prefixes, pages, refusals',
    async (c) => {
      for (const name of ['a1', 'a2', 'b1']) await c.queue(name);
      expect(await c.ok('GetQueueUrl', { QueueName: 'a2' })).toEqual({ QueueUrl: c.urlOf('a2') });
      expect(await c.fails('GetQueueUrl', { QueueName: 'zz' })).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.NonExistentQueue',
        message: 'The specified queue does not exist: zz.',
      });
      expect(
        await c.fails('GetQueueUrl', { QueueName: 'a1', QueueOwnerAWSAccountId: 'other' }),
      ).toEqual({
        status: 403,
        code: 'AccessDenied',
        message: 'Access to queues of account other is denied.',
      });
      expect(await c.ok('ListQueues', { QueueNamePrefix: 'a' })).toEqual({
        QueueUrls: [c.urlOf('a1'), c.urlOf('a2')],
      });
      const page = await c.ok('ListQueues', { MaxResults: 2 });
      expect(page.QueueUrls).toEqual([c.urlOf('a1'), c.urlOf('a2')]);
      expect(await c.ok('ListQueues', { MaxResults: 2, NextToken: page.NextToken })).toEqual({
        QueueUrls: [c.urlOf('b1')],
      });
      expect(await c.ok('ListQueues', { QueueNamePrefix: 'none' })).toEqual({});
      expect(await c.fails('ListQueues', { MaxResults: 1001 })).toEqual(
        invalid(
          'Value 1001 for parameter MaxResults is invalid. Reason: must be between 1 and 1000, if provided.',
        ),
      );
    },
  ],
  [
    'GetQueueAttributes (All in any case) and SetQueueAttributes, encryption attributes round-tripped',
    async (c) => {
      const QueueUrl = await c.queue('jobs', {
        SqsManagedSseEnabled: 'TRUE',
        MaximumMessageSize: '4096',
      });
      const all = (await c.ok('GetQueueAttributes', { QueueUrl, AttributeNames: ['All'] }))
        .Attributes!;
      expect(all).toEqual({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
        ApproximateNumberOfMessagesDelayed: '0',
        CreatedTimestamp: expect.stringMatching(/^\d{10}$/),
        QueueArn: `arn:aws:sqs:us-east-1:${c.id}:jobs`,
        VisibilityTimeout: '30',
        DelaySeconds: '0',
        MessageRetentionPeriod: '1209600',
        ReceiveMessageWaitTimeSeconds: '0',
        MaximumMessageSize: '4096',
        SqsManagedSseEnabled: 'true',
      });
      for (const name of ['ALL', 'all', 'aLl']) {
        expect(
          (await c.ok('GetQueueAttributes', { QueueUrl, AttributeNames: [name] })).Attributes,
        ).toEqual(all);
      }
      await c.ok('SetQueueAttributes', {
        QueueUrl,
        Attributes: {
          SqsManagedSseEnabled: 'false',
          KmsMasterKeyId:
            'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          KmsDataKeyReusePeriodSeconds: '86400',
          MaximumMessageSize: '262144',
          VisibilityTimeout: '43200',
        },
      });
      const names = [
        'SqsManagedSseEnabled',
        'KmsMasterKeyId',
        'KmsDataKeyReusePeriodSeconds',
        'MaximumMessageSize',
        'VisibilityTimeout',
      ];
      expect(await c.ok('GetQueueAttributes', { QueueUrl, AttributeNames: names })).toEqual({
        Attributes: {
          SqsManagedSseEnabled: 'false',
          KmsMasterKeyId:
            'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          KmsDataKeyReusePeriodSeconds: '86400',
          MaximumMessageSize: '262144',
          VisibilityTimeout: '43200',
        },
      });
      // an empty key id turns SSE-KMS off: the key and its reuse period are no longer reported
      await c.ok('SetQueueAttributes', {
        QueueUrl,
        Attributes: { KmsMasterKeyId: '', KmsDataKeyReusePeriodSeconds: '300' },
      });
      expect(
        (await c.ok('GetQueueAttributes', { QueueUrl, AttributeNames: ['All'] })).Attributes!
          .KmsMasterKeyId,
      ).toBeUndefined();
      expect(await c.fails('GetQueueAttributes', { QueueUrl, AttributeNames: ['Nope'] })).toEqual({
        status: 400,
        code: 'InvalidAttributeName',
        message: 'Unknown Attribute Nope.',
      });
      expect(await c.fails('SetQueueAttributes', { QueueUrl })).toEqual({
        status: 400,
        code: 'MissingParameter',
        message: 'The request must contain the parameter Attributes.',
      });
    },
  ],
  [
    'RedrivePolicy, ListDeadLetterSourceQueues, PurgeQueue and DeleteQueue',
    async (c) => {
      const dlq = await c.queue('dlq');
      const QueueUrl = await c.queue('work', {
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: `arn:aws:sqs:us-east-1:${c.id}:dlq`,
          maxReceiveCount: 2,
        }),
      });
      expect(await c.ok('ListDeadLetterSourceQueues', { QueueUrl: dlq })).toEqual({
        queueUrls: [QueueUrl],
      });
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'x' });
      await c.ok('PurgeQueue', { QueueUrl });
      expect(
        await c.ok('GetQueueAttributes', {
          QueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      ).toEqual({ Attributes: { ApproximateNumberOfMessages: '0' } });
      await c.ok('DeleteQueue', { QueueUrl });
      expect(await c.fails('PurgeQueue', { QueueUrl })).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.NonExistentQueue',
        message: 'The specified queue does not exist: work.',
      });
      expect(await c.fails('DeleteQueue', { QueueUrl: 'http://x/elsewhere' })).toMatchObject({
        status: 404,
        code: 'InvalidAddress',
      });
    },
  ],
  [
    'SendMessage, ReceiveMessage, DeleteMessage: a body with every awkward character comes back exactly',
    async (c) => {
      const QueueUrl = await c.queue();
      const sent = await c.ok('SendMessage', { QueueUrl, MessageBody: AWKWARD_BODY });
      expect(sent).toEqual({ MessageId: expect.any(String), MD5OfMessageBody: md5(AWKWARD_BODY) });
      const received = await c.ok('ReceiveMessage', {
        QueueUrl,
        AttributeNames: ['ALL'],
        MaxNumberOfMessages: 10,
      });
      expect(received.Messages).toEqual([
        {
          MessageId: sent.MessageId,
          ReceiptHandle: expect.any(String),
          MD5OfBody: md5(AWKWARD_BODY),
          Body: AWKWARD_BODY,
          Attributes: {
            ApproximateReceiveCount: '1',
            SentTimestamp: expect.stringMatching(/^\d{13}$/),
            ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
          },
        },
      ]);
      const ReceiptHandle = received.Messages![0].ReceiptHandle;
      expect(await c.ok('DeleteMessage', { QueueUrl, ReceiptHandle })).toEqual({});
      expect(await c.ok('ReceiveMessage', { QueueUrl })).toEqual({});
      // a stale handle's delete succeeds; a malformed one does not
      expect(await c.ok('DeleteMessage', { QueueUrl, ReceiptHandle })).toEqual({});
      expect(await c.fails('DeleteMessage', { QueueUrl, ReceiptHandle: 'junk' })).toEqual({
        status: 404,
        code: 'ReceiptHandleIsInvalid',
        message: 'The input receipt handle "junk" is not a valid receipt handle.',
      });
    },
  ],
  [
    "SendMessage's size is SQS's: 256 KiB is sent, 256 KiB + 1 is not; attributes count; a queue's MaximumMessageSize applies",
    async (c) => {
      const QueueUrl = await c.queue('big');
      const max = 262_144;
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'x'.repeat(max) });
      expect(await c.fails('SendMessage', { QueueUrl, MessageBody: 'x'.repeat(max + 1) })).toEqual(
        invalid(
          'messages[0] is 262145 bytes, over its limit of 262144 bytes (max_sqs_message_bytes)',
        ),
      );
      // over what any plan may allow: refused before any call
      const huge = 'x'.repeat(1_048_577);
      expect(await c.fails('SendMessage', { QueueUrl, MessageBody: huge })).toEqual(
        invalid(
          'One or more parameters are invalid. Reason: Message must be shorter than 1048577 bytes; this one is 1048577 bytes (body and message attributes).',
        ),
      );
      // 'ü' is two bytes; an attribute counts its name, type and value (Binary as its bytes)
      const attributes = {
        k: { DataType: 'String', StringValue: 'v' },
        b: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2, 3]).toString('base64') },
      };
      const room = max - (1 + 6 + 1) - (1 + 6 + 3);
      await c.ok('SendMessage', {
        QueueUrl,
        MessageBody: 'ü'.repeat(room / 2),
        MessageAttributes: attributes,
      });
      expect(
        (
          await c.fails('SendMessage', {
            QueueUrl,
            MessageBody: `${'ü'.repeat(room / 2)}x`,
            MessageAttributes: attributes,
          })
        ).code,
      ).toBe('InvalidParameterValue');
      const small = await c.queue('small', { MaximumMessageSize: '1024' });
      await c.ok('SendMessage', { QueueUrl: small, MessageBody: 'y'.repeat(1024) });
      expect(
        await c.fails('SendMessage', { QueueUrl: small, MessageBody: 'y'.repeat(1025) }),
      ).toEqual(invalid('messages[0] is 1025 bytes, over its limit of 1024 bytes (sqs_max_bytes)'));
      const stored = await c.ok('GetQueueAttributes', {
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      });
      expect(stored.Attributes).toEqual({ ApproximateNumberOfMessages: '2' });
    },
  ],
  [
    'SendMessage checks its parameters as SQS does',
    async (c) => {
      const QueueUrl = await c.queue();
      const cases: [Record<string, unknown>, object][] = [
        [
          { MessageBody: '' },
          {
            status: 400,
            code: 'MissingParameter',
            message: 'The request must contain the parameter MessageBody.',
          },
        ],
        [
          { MessageBody: 'x', DelaySeconds: 901 },
          invalid(
            'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
          ),
        ],
        [
          { MessageBody: 'x', DelaySeconds: -1 },
          invalid(
            'Value -1 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
          ),
        ],
        [
          { MessageBody: 'bad \u0001 char' },
          {
            status: 400,
            code: 'InvalidMessageContents',
            message:
              'Invalid characters found in MessageBody: only #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF are allowed.',
          },
        ],
        [
          { MessageBody: 'x', MessageDeduplicationId: 'd'.repeat(129) },
          invalid('MessageDeduplicationId must be 1 to 128 characters.'),
        ],
        [
          {
            MessageBody: 'x',
            MessageAttributes: { 'AWS.x': { DataType: 'String', StringValue: 'v' } },
          },
          invalid(
            "Message attribute name 'AWS.x' is invalid: use 1 to 256 of A-Z a-z 0-9 _ - ., not starting or ending with a period, without '..', not starting with AWS. or Amazon.",
          ),
        ],
        [
          {
            MessageBody: 'x',
            MessageAttributes: { n: { DataType: 'Number', StringValue: 'ten' } },
          },
          invalid(`Message attribute 'n' of type Number must hold a number, got "ten".`),
        ],
        [
          {
            MessageBody: 'x',
            MessageAttributes: Object.fromEntries(
              Array.from({ length: 11 }, (_, i) => [
                `a${i}`,
                { DataType: 'String', StringValue: 'v' },
              ]),
            ),
          },
          invalid('Number of message attributes [11] exceeds the allowed maximum [10].'),
        ],
      ];
      for (const [input, error] of cases) {
        expect([input, await c.fails('SendMessage', { QueueUrl, ...input })]).toEqual([
          input,
          error,
        ]);
      }
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'y', DelaySeconds: 900 });
    },
  ],
  [
    'message attributes: every type round-trips; All in any case, .*, prefix.* and names select them',
    async (c) => {
      const QueueUrl = await c.queue();
      const MessageAttributes = {
        'trace.id': { DataType: 'String', StringValue: 'a<b&c\r\n' },
        'trace.span': { DataType: 'Number', StringValue: '-12.5e3' },
        blob: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 254, 255]).toString('base64') },
        kind: { DataType: 'String.custom', StringValue: 'ünï' },
      };
      const sent = await c.ok('SendMessage', { QueueUrl, MessageBody: 'a', MessageAttributes });
      expect(sent.MD5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
      const receive = async (names: string[]) => {
        const out = await c.ok('ReceiveMessage', {
          QueueUrl,
          MessageAttributeNames: names,
          VisibilityTimeout: 0,
        });
        return out.Messages![0] as { MessageAttributes?: object; MD5OfMessageAttributes?: string };
      };
      for (const all of [['All'], ['ALL'], ['.*']]) {
        const m = await receive(all);
        expect(m.MessageAttributes).toEqual(MessageAttributes);
        expect(m.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
      }
      expect(Object.keys((await receive(['trace.*', 'kind'])).MessageAttributes!).sort()).toEqual([
        'kind',
        'trace.id',
        'trace.span',
      ]);
      expect((await receive(['blob'])).MessageAttributes).toEqual({
        blob: MessageAttributes.blob,
      });
      const none = await receive([]);
      expect(none.MessageAttributes).toBeUndefined();
      expect(none.MD5OfMessageAttributes).toBeUndefined();
    },
  ],
  [
    'ReceiveMessage checks its parameters; system attribute names in any case',
    async (c) => {
      const QueueUrl = await c.queue();
      const cases: [Record<string, unknown>, string][] = [
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
        expect(await c.fails('ReceiveMessage', { QueueUrl, ...input })).toEqual(invalid(message));
      }
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'm' });
      const [m] = (
        await c.ok('ReceiveMessage', {
          QueueUrl,
          MessageSystemAttributeNames: ['all'],
          VisibilityTimeout: 0,
          WaitTimeSeconds: 1,
        })
      ).Messages!;
      expect(Object.keys(m.Attributes as object).sort()).toEqual([
        'ApproximateFirstReceiveTimestamp',
        'ApproximateReceiveCount',
        'SentTimestamp',
      ]);
    },
  ],
  [
    'ChangeMessageVisibility: 0 gives the message back, more extends; stale and malformed handles refused',
    async (c) => {
      const QueueUrl = await c.queue();
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'm' });
      const first = (await c.ok('ReceiveMessage', { QueueUrl, VisibilityTimeout: 60 }))
        .Messages![0];
      expect(
        await c.ok('ChangeMessageVisibility', {
          QueueUrl,
          ReceiptHandle: first.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      ).toEqual({});
      const again = (await c.ok('ReceiveMessage', { QueueUrl })).Messages![0];
      expect(again.MessageId).toBe(first.MessageId);
      expect(
        await c.fails('ChangeMessageVisibility', {
          QueueUrl,
          ReceiptHandle: first.ReceiptHandle,
          VisibilityTimeout: 10,
        }),
      ).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.MessageNotInflight',
        message: `The message of receipt handle ${first.ReceiptHandle} is not in flight: it was deleted, or its visibility timeout ended.`,
      });
      await c.ok('ChangeMessageVisibility', {
        QueueUrl,
        ReceiptHandle: again.ReceiptHandle,
        VisibilityTimeout: 43_200,
      });
      expect(
        await c.fails('ChangeMessageVisibility', {
          QueueUrl,
          ReceiptHandle: again.ReceiptHandle,
          VisibilityTimeout: 43_201,
        }),
      ).toEqual(
        invalid(
          'Value 43201 for parameter VisibilityTimeout is invalid. Reason: must be between 0 and 43200, if provided.',
        ),
      );
    },
  ],
  [
    'SendMessageBatch: failed entries apart, refusals of the whole batch, 1 MiB in all',
    async (c) => {
      const QueueUrl = await c.queue();
      const out = await c.ok('SendMessageBatch', {
        QueueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b-_9', MessageBody: 'two', DelaySeconds: 901 },
          {
            Id: 'c',
            MessageBody: 'three',
            MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } },
          },
        ],
      });
      expect(out).toEqual({
        Successful: [
          { Id: 'a', MessageId: expect.any(String), MD5OfMessageBody: md5('one') },
          {
            Id: 'c',
            MessageId: expect.any(String),
            MD5OfMessageBody: md5('three'),
            MD5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
          },
        ],
        Failed: [
          {
            Id: 'b-_9',
            SenderFault: true,
            Code: 'InvalidParameterValue',
            Message:
              'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
          },
        ],
      });
      const entry = (Id: string) => ({ Id, MessageBody: 'x' });
      expect(await c.fails('SendMessageBatch', { QueueUrl, Entries: [] })).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.EmptyBatchRequest',
        message: 'There should be at least one entry in the request.',
      });
      expect(
        await c.fails('SendMessageBatch', {
          QueueUrl,
          Entries: Array.from({ length: 11 }, (_, i) => entry(`e${i}`)),
        }),
      ).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
        message: 'Maximum number of entries per request are 10. You have sent 11.',
      });
      expect(
        await c.fails('SendMessageBatch', { QueueUrl, Entries: [entry('a'), entry('a')] }),
      ).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
        message: 'Id a repeated.',
      });
      expect((await c.fails('SendMessageBatch', { QueueUrl, Entries: [entry('a.b')] })).code).toBe(
        'AWS.SimpleQueueService.InvalidBatchEntryId',
      );
      const big = (Id: string) => ({ Id, MessageBody: 'x'.repeat(262_144) });
      expect(
        (await c.ok('SendMessageBatch', { QueueUrl, Entries: ['a', 'b', 'c', 'd'].map(big) }))
          .Successful,
      ).toHaveLength(4);
      expect(
        await c.fails('SendMessageBatch', {
          QueueUrl,
          Entries: [...['a', 'b', 'c', 'd'].map(big), entry('e')],
        }),
      ).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.BatchRequestTooLong',
        message:
          'Batch requests cannot be longer than 1048576 bytes (bodies and message attributes of its messages); this one is 1048577 bytes.',
      });
    },
  ],
  [
    'DeleteMessageBatch and ChangeMessageVisibilityBatch: per entry',
    async (c) => {
      const QueueUrl = await c.queue();
      await c.ok('SendMessageBatch', {
        QueueUrl,
        Entries: [1, 2].map((i) => ({ Id: `m${i}`, MessageBody: `${i}` })),
      });
      const got = (await c.ok('ReceiveMessage', { QueueUrl, MaxNumberOfMessages: 10 })).Messages!;
      expect(got).toHaveLength(2);
      expect(
        await c.ok('ChangeMessageVisibilityBatch', {
          QueueUrl,
          Entries: [
            { Id: 'x', ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 100 },
            { Id: 'y', ReceiptHandle: 'junk', VisibilityTimeout: 100 },
          ],
        }),
      ).toEqual({
        Successful: [{ Id: 'x' }],
        Failed: [
          {
            Id: 'y',
            SenderFault: true,
            Code: 'ReceiptHandleIsInvalid',
            Message: 'The input receipt handle "junk" is not a valid receipt handle.',
          },
        ],
      });
      expect(
        await c.ok('DeleteMessageBatch', {
          QueueUrl,
          Entries: got.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
        }),
      ).toEqual({ Successful: [{ Id: 'd0' }, { Id: 'd1' }], Failed: [] });
      expect(await c.fails('DeleteMessageBatch', { QueueUrl })).toEqual({
        status: 400,
        code: 'MissingParameter',
        message: 'The request must contain the parameter Entries.',
      });
    },
  ],
  [
    'tags: CreateQueue tags, TagQueue, UntagQueue, ListQueueTags; the limits refused; gone with the queue',
    async (c) => {
      const QueueUrl = (
        await c.ok('CreateQueue', { QueueName: 'tagged', tags: { team: 'a&b <c>', empty: '' } })
      ).QueueUrl!;
      expect(await c.ok('ListQueueTags', { QueueUrl })).toEqual({
        Tags: { empty: '', team: 'a&b <c>' },
      });
      await c.ok('TagQueue', { QueueUrl, Tags: { team: 'b', ['k'.repeat(128)]: 'v'.repeat(256) } });
      await c.ok('UntagQueue', { QueueUrl, TagKeys: ['empty', 'absent'] });
      expect(await c.ok('ListQueueTags', { QueueUrl })).toEqual({
        Tags: { team: 'b', ['k'.repeat(128)]: 'v'.repeat(256) },
      });
      const many = (n: number, from = 0) =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i + from}`, 'v']));
      expect(await c.fails('TagQueue', { QueueUrl, Tags: many(49) })).toEqual(
        invalid('channel tagged may have at most 50 tags; this change would leave it with 51'),
      );
      await c.ok('TagQueue', { QueueUrl, Tags: many(48) });
      expect(await c.fails('TagQueue', { QueueUrl, Tags: many(51) })).toEqual(
        invalid('A queue may have at most 50 tags; Tags has 51.'),
      );
      expect(await c.fails('TagQueue', { QueueUrl, Tags: { ['k'.repeat(129)]: 'v' } })).toEqual(
        invalid(`Tag key "${'k'.repeat(129)}" is invalid: tag keys are 1 to 128 characters.`),
      );
      expect(await c.fails('TagQueue', { QueueUrl, Tags: { k: 'v'.repeat(257) } })).toEqual(
        invalid('The value of tag "k" is invalid: tag values are at most 256 characters.'),
      );
      expect(await c.fails('TagQueue', { QueueUrl })).toEqual({
        status: 400,
        code: 'MissingParameter',
        message: 'The request must contain the parameter Tags.',
      });
      expect(await c.fails('UntagQueue', { QueueUrl })).toEqual({
        status: 400,
        code: 'MissingParameter',
        message: 'The request must contain the parameter TagKeys.',
      });
      expect((await c.fails('CreateQueue', { QueueName: 'over', tags: many(51) })).message).toBe(
        'A queue may have at most 50 tags; tags has 51.',
      );
      await c.ok('DeleteQueue', { QueueUrl });
      expect(await pods.redis.keys(`rq:{${c.id}}:c:tagged:*`)).toEqual([]);
      await c.queue('tagged');
      expect(await c.ok('ListQueueTags', { QueueUrl })).toEqual({});
    },
  ],
  [
    'unsupported actions are UnsupportedOperation, unknown ones InvalidAction',
    async (c) => {
      expect(await c.fails('AddPermission', { Label: 'x' })).toEqual({
        status: 400,
        code: 'AWS.SimpleQueueService.UnsupportedOperation',
        message: 'AddPermission is not supported by relayq.',
      });
      const unknown = await c.fails('Frobnicate', {});
      expect(unknown).toMatchObject({ status: 400, code: 'InvalidAction' });
    },
  ],
  [
    'a request posted to a queue URL without QueueUrl acts on that queue (as kombu posts)',
    async (c) => {
      const QueueUrl = await c.queue('named');
      await c.ok('SendMessage', { MessageBody: 'by path' }, { path: `/sqs/${c.id}/named` });
      const got = await c.ok('ReceiveMessage', {}, { path: `/sqs/${c.id}/named` });
      expect(got.Messages![0].Body).toBe('by path');
      // a QueueUrl in the request wins
      await c.queue('other');
      await c.ok(
        'SendMessage',
        { QueueUrl, MessageBody: 'explicit' },
        { path: `/sqs/${c.id}/other` },
      );
      expect(
        (await c.ok('GetQueueAttributes', { QueueUrl: c.urlOf('other'), AttributeNames: ['All'] }))
          .Attributes!.ApproximateNumberOfMessages,
      ).toBe('0');
    },
  ],
  [
    'the root path serves SQS requests as /sqs does',
    async (c) => {
      const QueueUrl = (await c.ok('CreateQueue', { QueueName: 'root' }, { path: '/' })).QueueUrl;
      expect(QueueUrl).toBe(c.urlOf('root'));
      await c.ok('SendMessage', { QueueUrl, MessageBody: 'at root' }, { path: '/' });
      expect((await c.ok('ReceiveMessage', { QueueUrl }, { path: '/' })).Messages![0].Body).toBe(
        'at root',
      );
      expect(await c.fails('GetQueueUrl', { QueueName: 'nope' }, { path: '/' })).toMatchObject({
        status: 400,
        code: 'AWS.SimpleQueueService.NonExistentQueue',
      });
    },
  ],
];

describe.each(['json', 'query'] as const)('%s protocol', (protocol) => {
  test.each(CASES)('%s', async (_name, run) => run(await caseFor(protocol)));
});
