/**
 * The SQS tools people already run, unchanged: the AWS CLI and boto3 with
 * --endpoint-url <base_url>/sqs (both installed on the test machine; when one
 * is missing its test fails with a message saying so).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sqsAccount, useSqsPods } from './support';

const run = promisify(execFile);
const pods = useSqsPods();

function awsEnv(keys: { accessKeyId: string; secretAccessKey: string }) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  };
}

test('the AWS CLI creates a queue, sends, receives and deletes', async () => {
  const { keys, urlOf } = await sqsAccount(pods, 'cli');
  const endpoint = `${pods.a.baseUrl}/sqs`;
  const aws = async (...args: string[]) => {
    const { stdout } = await run(
      'aws',
      ['sqs', ...args, '--endpoint-url', endpoint, '--output', 'json'],
      {
        env: awsEnv(keys),
      },
    );
    return stdout.trim() === '' ? {} : JSON.parse(stdout);
  };
  const created = await aws('create-queue', '--queue-name', 'cli-orders');
  expect(created.QueueUrl).toBe(urlOf('cli-orders'));
  const sent = await aws(
    'send-message',
    '--queue-url',
    created.QueueUrl,
    '--message-body',
    'from the cli',
    '--message-attributes',
    '{"kind":{"DataType":"String","StringValue":"test"}}',
  );
  expect(sent.MessageId).toMatch(/^[0-9a-f-]{36}$/);
  const received = await aws(
    'receive-message',
    '--queue-url',
    created.QueueUrl,
    '--message-attribute-names',
    'All',
    '--wait-time-seconds',
    '1',
  );
  expect(received.Messages).toHaveLength(1);
  expect(received.Messages[0]).toMatchObject({
    Body: 'from the cli',
    MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
    MD5OfMessageAttributes: sent.MD5OfMessageAttributes,
  });
  await aws(
    'delete-message',
    '--queue-url',
    created.QueueUrl,
    '--receipt-handle',
    received.Messages[0].ReceiptHandle,
  );
  const attributes = await aws(
    'get-queue-attributes',
    '--queue-url',
    created.QueueUrl,
    '--attribute-names',
    'All',
  );
  expect(attributes.Attributes.ApproximateNumberOfMessages).toBe('0');
  expect(attributes.Attributes.QueueArn).toMatch(/^arn:aws:sqs:eu-west-1:cli-\d+:cli-orders$/);
});

test('boto3 creates a queue, sends a batch, receives with attributes and deletes', async () => {
  const { keys } = await sqsAccount(pods, 'boto');
  const script = `
import boto3, json, sys
sqs = boto3.client("sqs", endpoint_url=sys.argv[1])
url = sqs.create_queue(QueueName="boto-orders")["QueueUrl"]
batch = sqs.send_message_batch(QueueUrl=url, Entries=[
  {"Id": "a", "MessageBody": "one", "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "7"}, "b": {"DataType": "Binary", "BinaryValue": b"\\x00\\x01"}}},
  {"Id": "b", "MessageBody": "two"},
  {"Id": "c", "MessageBody": ""},
])
got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"], AttributeNames=["All"])
for m in got["Messages"]:
  sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
  if "MessageAttributes" in m and "b" in m["MessageAttributes"]:
    m["MessageAttributes"]["b"]["BinaryValue"] = list(m["MessageAttributes"]["b"]["BinaryValue"])
try:
  sqs.get_queue_url(QueueName="missing")
  missing = None
except sqs.exceptions.QueueDoesNotExist as e:
  missing = e.response["Error"]["Code"]
print(json.dumps({"batch": batch, "got": got["Messages"], "missing": missing}))
`;
  const { stdout } = await run('python3', ['-c', script, `${pods.a.baseUrl}/sqs`], {
    env: awsEnv(keys),
  });
  const out = JSON.parse(stdout);
  expect(out.batch.Successful.map((s: { Id: string }) => s.Id).sort()).toEqual(['a', 'b']);
  expect(out.batch.Failed).toEqual([
    expect.objectContaining({ Id: 'c', SenderFault: true, Code: 'MissingParameter' }),
  ]);
  const bodies = out.got.map((m: { Body: string }) => m.Body).sort();
  expect(bodies).toEqual(['one', 'two']);
  const one = out.got.find((m: { Body: string }) => m.Body === 'one');
  expect(one.MessageAttributes).toEqual({
    n: { DataType: 'Number', StringValue: '7' },
    b: { DataType: 'Binary', BinaryValue: [0, 1] },
  });
  expect(one.MD5OfMessageAttributes).toBe(
    out.batch.Successful.find((s: { Id: string }) => s.Id === 'a').MD5OfMessageAttributes,
  );
  expect(out.missing).toBe('AWS.SimpleQueueService.NonExistentQueue');
});
