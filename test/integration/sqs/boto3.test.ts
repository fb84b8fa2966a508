/**
 * The query protocol with a real client: Debian 12's botocore 1.29 (python3-boto3,
 * installed by .ci/run), which speaks only the query protocol, runs every action
 * relayq supports against the root path (as kombu's `sqs://host:port` does) and
 * /sqs, and parses relayq's XML with its own parser.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { pythonHas, runPython } from './python';
import { sqsAccount, useSqsPods } from './support';

const pods = useSqsPods();
const testIfBoto3 = pythonHas('boto3') ? test : test.skip;

const BODY = 'tab\there, CR\rLF\nCRLF\r\n <tag> & "quotes" \'apos\' ]]> ünïcode 🎉';
const md5 = (text: string) => crypto.createHash('md5').update(text, 'utf8').digest('hex');

testIfBoto3('botocore 1.29 (query protocol) runs every supported action', async () => {
  const { id, keys, urlOf, relay } = await sqsAccount(pods, 'boto3', { plan: 'paid' });
  const run = await runPython(
    [path.join(__dirname, 'python', 'boto3_query.py')],
    {
      ENDPOINT: pods.a.baseUrl,
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    },
    60_000,
  );
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const out = JSON.parse(run.stdout);
  expect(out.protocol).toBe('query');
  expect(out.botocore).toMatch(/^1\.29\./);
  const queue = urlOf('py-orders');
  expect(out.create).toBe(queue);
  expect(out.createAgain).toBe(queue);
  expect(out.getUrl).toBe(queue);
  expect(out.list).toEqual([urlOf('py-dlq'), queue]);
  expect(out.listPage).toEqual({ QueueUrls: [urlOf('py-dlq')], NextToken: expect.any(String) });
  expect(out.listNone).toEqual({});
  expect(out.attributes).toEqual({
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '0',
    ApproximateNumberOfMessagesDelayed: '0',
    CreatedTimestamp: expect.stringMatching(/^\d{10}$/),
    QueueArn: `arn:aws:sqs:eu-west-3:${id}:py-orders`,
    VisibilityTimeout: '40',
    DelaySeconds: '0',
    MessageRetentionPeriod: '1209600',
    ReceiveMessageWaitTimeSeconds: '0',
    MaximumMessageSize: '2048',
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: `arn:aws:sqs:eu-west-3:${id}:py-dlq`,
      maxReceiveCount: 5,
    }),
    SqsManagedSseEnabled: 'true',
    KmsMasterKeyId: 'alias/aws/sqs',
    KmsDataKeyReusePeriodSeconds: '600',
  });
  expect(out.someAttributes).toEqual({
    Attributes: { MaximumMessageSize: '2048', KmsMasterKeyId: 'alias/aws/sqs' },
  });
  expect(out.sources).toEqual([queue]);

  // the body comes back exactly: CR (written &#xD;), tabs, markup characters, astral characters
  expect(out.send.MD5OfMessageBody).toBe(md5(BODY));
  expect(out.tooLong).toEqual({
    code: 'InvalidParameterValue',
    type: 'Sender',
    message: 'messages[0] is 2049 bytes, over its limit of 2048 bytes (sqs_max_bytes)',
    status: 400,
    exception: 'ClientError',
  });
  const [m] = out.received.Messages;
  expect(m).toEqual({
    MessageId: out.send.MessageId,
    ReceiptHandle: expect.any(String),
    MD5OfBody: md5(BODY),
    Body: BODY,
    Attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: expect.stringMatching(/^\d{13}$/),
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
    },
    MD5OfMessageAttributes: out.send.MD5OfMessageAttributes,
    MessageAttributes: {
      'trace.id': { DataType: 'String', StringValue: 'x<y&z\r' },
      'trace.n': { DataType: 'Number', StringValue: '-1.5e3' },
      blob: { DataType: 'Binary', BinaryValue: 'AAH+/w==' },
    },
  });
  expect(out.changeVisibility).toEqual({});
  expect(out.deleteMessage).toEqual({});
  expect(out.receiveEmpty).toEqual({});

  expect(out.sendBatch.Successful).toEqual([
    { Id: 'a', MessageId: expect.any(String), MD5OfMessageBody: md5('one') },
    {
      Id: 'b',
      MessageId: expect.any(String),
      MD5OfMessageBody: md5('two'),
      MD5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
    },
  ]);
  expect(out.sendBatch.Failed).toEqual([
    {
      Id: 'c',
      SenderFault: true,
      Code: 'InvalidParameterValue',
      Message:
        'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.',
    },
  ]);
  expect(out.batchReceived).toEqual(['one', 'two']);
  expect(out.changeBatch).toEqual({
    Successful: [{ Id: 'x' }],
    Failed: [
      {
        Id: 'y',
        SenderFault: true,
        Code: 'ReceiptHandleIsInvalid',
        Message: 'The input receipt handle "not-a-handle" is not a valid receipt handle.',
      },
    ],
  });
  expect(out.deleteBatch).toEqual({ Successful: [{ Id: 'm0' }, { Id: 'm1' }] });
  expect(out.emptyBatch).toMatchObject({
    code: 'AWS.SimpleQueueService.EmptyBatchRequest',
    status: 400,
    exception: 'EmptyBatchRequest',
  });

  expect(out.tags).toEqual({ team: 'b', env: 'test' });
  expect(out.tooManyTags).toMatchObject({
    code: 'InvalidParameterValue',
    status: 400,
    message: 'channel py-orders may have at most 50 tags; this change would leave it with 51',
  });
  expect(out.afterPurge).toEqual({ ApproximateNumberOfMessages: '0' });
  expect(out.deleted).toEqual({
    code: 'AWS.SimpleQueueService.NonExistentQueue',
    type: 'Sender',
    message: 'The specified queue does not exist: py-orders.',
    status: 400,
    exception: 'QueueDoesNotExist',
  });
  expect(out.modeledException).toBe('QueueDoesNotExist');
  expect(out.badAttribute).toMatchObject({ code: 'InvalidAttributeValue', status: 400 });
  expect(out.unsupported).toMatchObject({
    code: 'AWS.SimpleQueueService.UnsupportedOperation',
    status: 400,
  });
  expect((await relay.channel('py-orders')).status).toBe(404);
});
