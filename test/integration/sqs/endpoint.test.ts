/**
 * The SQS endpoint's protocol handling: query-protocol errors as SQS's XML with
 * the JSON protocol's statuses, GET requests, the root path (SQS requests only;
 * everything else at `/` as before), XML escaping, body limits in the request's
 * shape, and the request log line of every SQS request.
 */
import pino from 'pino';
import { eventually, startListeningApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { accountId } from '../../helpers/pods';
import { relay as relayClient } from '../../helpers/relayClient';
import { callSqs, queryBody } from './protocolClients';
import { SQS_KEY, issueAwsToken } from './support';

const lines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
// plans whose SQS messages are 1 KiB at most: the request body limit is then its least, 4 MiB
const PLANS = JSON.stringify({
  free: { max_sqs_message_bytes: 1024 },
  paid: { max_sqs_message_bytes: 1024 },
});
const rq = useRelay({
  pods: 1,
  start: (redis) =>
    startListeningApp(redis, { RELAY_SQS_SECRET_KEY: SQS_KEY, RELAY_PLANS: PLANS }, logger),
});
const app = () => rq.app as Awaited<ReturnType<typeof startListeningApp>>;

async function account(prefix: string) {
  const id = accountId(prefix);
  await app().relay.store.accounts.create(id, 'free');
  const issued = await issueAwsToken(app(), id);
  return { id, keys: issued.keys, relay: relayClient(app(), `Bearer ${issued.token}`) };
}

/** The request log lines of SQS requests, in order. */
function sqsLines(): Record<string, unknown>[] {
  return lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.sqs);
}

test('query-protocol errors are SQS XML with the statuses of the JSON protocol', async () => {
  const { keys, id } = await account('xmlerr');
  const missing = await callSqs('query', app(), keys, 'GetQueueUrl', { QueueName: 'nope' });
  expect(missing.status).toBe(400);
  expect(missing.contentType).toBe('text/xml');
  expect(missing.raw).toMatch(
    new RegExp(
      '^<\\?xml version="1.0"\\?><ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">' +
        '<Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>' +
        '<Message>The specified queue does not exist: nope.</Message><Detail/></Error>' +
        '<RequestId>[0-9a-f-]{36}</RequestId></ErrorResponse>$',
    ),
  );
  const json = await callSqs('json', app(), keys, 'GetQueueUrl', { QueueName: 'nope' });
  expect(json.status).toBe(400);
  expect(json.error).toEqual(missing.error);

  // refusals before any action, unsigned or badly signed, in the same shape
  const unsigned = await fetch(`${app().baseUrl}/sqs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'Action=ListQueues&Version=2012-11-05',
  });
  expect(unsigned.status).toBe(403);
  expect(await unsigned.text()).toContain(
    '<Error><Type>Sender</Type><Code>MissingAuthenticationToken</Code><Message>Request is missing Authentication Token: sign it with AWS Signature Version 4</Message><Detail/></Error>',
  );
  const wrong = await callSqs('query', app(), { ...keys, secretAccessKey: 'x' }, 'ListQueues', {});
  expect(wrong).toMatchObject({
    status: 403,
    error: { code: 'SignatureDoesNotMatch', type: 'Sender' },
  });
  const noAction = await callSqs('query', app(), keys, '', {});
  expect(noAction).toMatchObject({
    status: 400,
    error: {
      code: 'MissingAction',
      message:
        'The request must contain the parameter Action (Action=<Action>&Version=2012-11-05), or send X-Amz-Target: AmazonSQS.<Action> with the JSON protocol.',
    },
  });
  const unknown = await callSqs('query', app(), keys, 'Frobnicate', {});
  expect(unknown).toMatchObject({
    status: 400,
    error: {
      code: 'InvalidAction',
      message: 'The action or operation requested is invalid: Action=Frobnicate.',
    },
  });
  // methods other than POST (and a query-protocol GET) are not served
  const other = await fetch(`${app().baseUrl}/sqs/${id}/q`, { method: 'DELETE' });
  expect(other.status).toBe(400);
  expect(await other.text()).toContain('<Code>InvalidAction</Code>');
});

test('GET with the parameters in the (signed) query string, at /sqs and at the root path', async () => {
  const { keys } = await account('get');
  await callSqs('query', app(), keys, 'CreateQueue', { QueueName: 'g' });
  for (const path of ['/sqs', '/']) {
    const listed = await callSqs('query', app(), keys, 'ListQueues', {}, { path, method: 'GET' });
    expect(listed.output).toEqual({ QueueUrls: [expect.stringMatching(/\/sqs\/get-\d+\/g$/)] });
  }
});

test('everything at / that is not an SQS request stays as it was: the 404 envelope', async () => {
  const envelope = {
    success: false,
    errors: [{ code: 404, message: 'no such endpoint: GET /' }],
    messages: [],
    result: null,
  };
  const get = await fetch(`${app().baseUrl}/`);
  expect([get.status, await get.json()]).toEqual([404, envelope]);
  const notSqs: RequestInit[] = [
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    },
    { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables' }, body: '{}' },
  ];
  for (const init of notSqs) {
    const res = await fetch(`${app().baseUrl}/`, init);
    expect([res.status, (await res.json()).errors]).toEqual([
      404,
      [{ code: 404, message: 'no such endpoint: POST /' }],
    ]);
  }
  const query = await fetch(`${app().baseUrl}/?a=1`);
  expect(query.status).toBe(404);
  // an SQS request at / without a signature is SQS's, in its protocol's shape
  const sqs = await fetch(`${app().baseUrl}/?Action=ListQueues`);
  expect(sqs.status).toBe(403);
  expect(await sqs.text()).toContain('<Code>MissingAuthenticationToken</Code>');
  const json = await fetch(`${app().baseUrl}/`, {
    method: 'POST',
    headers: { 'x-amz-target': 'AmazonSQS.ListQueues' },
    body: '{}',
  });
  expect(json.status).toBe(403);
  expect((await json.json()).__type).toBe('com.amazonaws.sqs#MissingAuthenticationToken');
});

test('XML carries CR as &#xD; and a relay message with characters XML cannot hold as U+FFFD', async () => {
  const { keys, relay } = await account('xmltext');
  const QueueUrl = (await callSqs('query', app(), keys, 'CreateQueue', { QueueName: 'x' })).output!
    .QueueUrl;
  await relay.send('x', { body: 'a\r\nb\u0001c\uFFFEd', content_type: 'text' });
  const got = await callSqs('query', app(), keys, 'ReceiveMessage', { QueueUrl });
  expect(got.raw).toContain('<Body>a&#xD;\nb\uFFFDc\uFFFDd</Body>');
  expect((got.output!.Messages as { Body: string }[])[0].Body).toBe('a\r\nb\uFFFDc\uFFFDd');
});

test('a body over the limit is refused in the shape of its protocol', async () => {
  await account('toobig');
  const big = 'x'.repeat(4 * 1024 * 1024 + 1);
  const form = await fetch(`${app().baseUrl}/sqs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${queryBody('SendMessage', {})}&MessageBody=${big}`,
  });
  expect(form.status).toBe(413);
  expect(await form.text()).toContain(
    '<Code>RequestEntityTooLarge</Code><Message>The request body is over the 4194304-byte limit.</Message>',
  );
  const json = await fetch(`${app().baseUrl}/`, {
    method: 'POST',
    headers: { 'x-amz-target': 'AmazonSQS.SendMessage' },
    body: `{"MessageBody":"${big}"}`,
  });
  expect(json.status).toBe(413);
  expect(await json.json()).toEqual({
    __type: 'com.amazonaws.sqs#RequestEntityTooLarge',
    message: 'The request body is over the 4194304-byte limit.',
  });
});

test('a body found over the limit while read (no Content-Length) is refused as one announced', async () => {
  await account('toobigchunked');
  const big = Buffer.from(`{"MessageBody":"${'x'.repeat(4 * 1024 * 1024)}"}`);
  const res = await fetch(`${app().baseUrl}/sqs`, {
    method: 'POST',
    headers: { 'x-amz-target': 'AmazonSQS.SendMessage' },
    // a stream: sent chunked, so the limit is found while reading
    body: new ReadableStream({
      start(controller) {
        for (let at = 0; at < big.length; at += 65536)
          controller.enqueue(big.subarray(at, at + 65536));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  expect(res.status).toBe(413);
  expect(await res.json()).toEqual({
    __type: 'com.amazonaws.sqs#RequestEntityTooLarge',
    message: 'The request body is over the 4194304-byte limit.',
  });
});

test('the request log names the protocol, the action and the refusal, never a body or a secret', async () => {
  const { keys, id } = await account('logged');
  lines.length = 0;
  await callSqs('query', app(), keys, 'CreateQueue', { QueueName: 'secret-queue-name' });
  const QueueUrl = `${app().baseUrl}/sqs/${id}/secret-queue-name`;
  await callSqs('json', app(), keys, 'SendMessage', { QueueUrl, MessageBody: 'SECRET BODY' });
  await callSqs('query', app(), keys, 'SendMessage', {
    QueueUrl: `${QueueUrl}-gone`,
    MessageBody: 'SECRET BODY',
  });
  await callSqs('query', app(), { ...keys, secretAccessKey: 'wrong' }, 'ReceiveMessage', {
    QueueUrl,
  });
  await fetch(`${app().baseUrl}/`, {
    method: 'POST',
    headers: { 'x-amz-target': 'AmazonSQS.DeleteQueue' },
    body: '{}',
  });
  await eventually(() => sqsLines().length >= 5);
  expect(sqsLines().map((l) => [l.route, l.status, l.sqs])).toEqual([
    ['/sqs', 200, { protocol: 'query', action: 'CreateQueue' }],
    ['/sqs', 200, { protocol: 'json', action: 'SendMessage' }],
    ['/sqs', 400, { protocol: 'query', action: 'SendMessage', error: 'QueueDoesNotExist' }],
    ['/sqs', 403, { protocol: 'query', action: 'ReceiveMessage', error: 'SignatureDoesNotMatch' }],
    ['/sqs', 403, { protocol: 'json', action: 'DeleteQueue', error: 'MissingAuthenticationToken' }],
  ]);
  const all = lines.join('');
  expect(all).not.toContain('SECRET BODY');
  expect(all).not.toContain(keys.secretAccessKey);
  expect(all).not.toMatch(/authorization/i);
});
