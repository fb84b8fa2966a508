/**
 * SQS authentication: AWS credentials issued on tokens, SigV4 checked on every
 * request, and the key acting exactly as its token (scope, revocation on every
 * pod, expiry, rate limit), with SQS's error shapes.
 */
import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  SendMessageCommand,
  AddPermissionCommand,
} from '@aws-sdk/client-sqs';
import { ADMIN_TOKEN, sleep } from '../../helpers/app';
import { accountId } from '../../helpers/pods';
import {
  issueAwsToken,
  signedRequest,
  sqsAccount,
  sqsClient,
  sqsError,
  useSqsPods,
} from './support';

const pods = useSqsPods();

test('a token with aws_credentials shows the pair once; listings show the key id only', async () => {
  const id = accountId('keys');
  await pods.a.relay.store.accounts.create(id, 'free');
  const issued = await issueAwsToken(pods.a, id, { name: 'sqs' });
  expect(issued.keys.accessKeyId).toBe(`RQ${issued.id}${id}`);
  expect(issued.keys.secretAccessKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const list = await pods.a.http
    .get(`/v1/admin/accounts/${id}/tokens`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(list.body.result.tokens[0].aws_access_key_id).toBe(issued.keys.accessKeyId);
  expect(JSON.stringify(list.body)).not.toContain(issued.keys.secretAccessKey);
  // the secret is nowhere in Redis
  const dump = await pods.redis.eachMaster(async (node) => {
    const keys = await node.keys(`rq:{${id}}:*`);
    const values = await Promise.all(
      keys.map(async (k) => JSON.stringify(await node.hgetall(k).catch(() => null))),
    );
    return values.join('\n');
  });
  expect(dump.join('')).not.toContain(issued.keys.secretAccessKey);
});

test('an owner makes AWS credentials through POST /v1/account/tokens', async () => {
  const id = accountId('owner');
  await pods.a.relay.store.accounts.create(id, 'free');
  const owner = await pods.a.http
    .post(`/v1/admin/accounts/${id}/tokens`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ role: 'owner' });
  const res = await pods.a.http
    .post('/v1/account/tokens')
    .set('Authorization', `Bearer ${owner.body.result.token}`)
    .send({ aws_credentials: true, channels: ['jobs'] });
  expect(res.status).toBe(200);
  const keys = {
    accessKeyId: res.body.result.aws_access_key_id,
    secretAccessKey: res.body.result.aws_secret_access_key,
  };
  const sqs = sqsClient(pods.b, keys);
  const created = await sqs.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  expect(created.QueueUrl).toBe(`${pods.b.baseUrl}/sqs/${id}/jobs`);
  const bad = await pods.a.http
    .post('/v1/account/tokens')
    .set('Authorization', `Bearer ${owner.body.result.token}`)
    .send({ aws_credentials: 'yes' });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].message).toBe('aws_credentials must be true or false');
});

test('a wrong secret is SignatureDoesNotMatch; an unknown key is InvalidClientTokenId', async () => {
  const { keys } = await sqsAccount(pods, 'auth');
  const wrong = sqsClient(pods.a, { ...keys, secretAccessKey: `${keys.secretAccessKey}x` });
  expect(await sqsError(wrong.send(new ListQueuesCommand({})))).toMatchObject({
    name: 'SignatureDoesNotMatch',
    status: 403,
  });
  const unknown = sqsClient(pods.a, {
    accessKeyId: `RQ0123456789abcdef${accountId('nobody')}`,
    secretAccessKey: keys.secretAccessKey,
  });
  expect(await sqsError(unknown.send(new ListQueuesCommand({})))).toMatchObject({
    name: 'InvalidClientTokenId',
    status: 403,
    message: 'The security token included in the request is invalid.',
  });
  const foreign = sqsClient(pods.a, { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'x' });
  expect((await sqsError(foreign.send(new ListQueuesCommand({})))).name).toBe(
    'InvalidClientTokenId',
  );
});

test('a revoked token stops its key at once on every pod', async () => {
  const { id, tokenId, sqsA, sqsB } = await sqsAccount(pods, 'revoke');
  await sqsA.send(new CreateQueueCommand({ QueueName: 'q' }));
  await sqsB.send(new GetQueueUrlCommand({ QueueName: 'q' }));
  const res = await pods.a.http
    .delete(`/v1/admin/accounts/${id}/tokens/${tokenId}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(res.status).toBe(200);
  for (const sqs of [sqsA, sqsB]) {
    expect(await sqsError(sqs.send(new GetQueueUrlCommand({ QueueName: 'q' })))).toMatchObject({
      name: 'InvalidClientTokenId',
      status: 403,
    });
  }
});

test('an expired token is refused; only a caller with its secret learns that it expired', async () => {
  const { sqsA, keys } = await sqsAccount(pods, 'expiry', { expires_in_seconds: 1 });
  await sqsA.send(new ListQueuesCommand({}));
  await sleep(1100);
  expect(await sqsError(sqsA.send(new ListQueuesCommand({})))).toMatchObject({
    name: 'InvalidClientTokenId',
    message: 'token has expired',
  });
  const guesser = sqsClient(pods.a, { ...keys, secretAccessKey: 'guess' });
  expect((await sqsError(guesser.send(new ListQueuesCommand({})))).name).toBe(
    'SignatureDoesNotMatch',
  );
});

test("another account's queue URL is AccessDenied; a scoped token reaches only its queues", async () => {
  const one = await sqsAccount(pods, 'one');
  const two = await sqsAccount(pods, 'two');
  const { QueueUrl } = await one.sqsA.send(new CreateQueueCommand({ QueueName: 'private' }));
  const err = await sqsError(
    two.sqsA.send(new SendMessageCommand({ QueueUrl, MessageBody: 'sneaky' })),
  );
  expect(err).toMatchObject({ name: 'AccessDenied', status: 403 });
  expect(await one.relay.pullOk('private')).toMatchObject({ messages: [] });

  const scoped = await sqsAccount(pods, 'scoped', { channels: ['mine'] });
  await scoped.sqsA.send(new CreateQueueCommand({ QueueName: 'mine' }));
  await scoped.relay.sendOk('other', { body: 1 }).catch(() => undefined);
  expect(
    await sqsError(scoped.sqsA.send(new CreateQueueCommand({ QueueName: 'other' }))),
  ).toMatchObject({ name: 'AccessDenied', status: 403 });
  const listed = await scoped.sqsA.send(new ListQueuesCommand({}));
  expect(listed.QueueUrls).toEqual([scoped.urlOf('mine')]);
});

test('a stale X-Amz-Date is refused, a current one accepted', async () => {
  const { keys } = await sqsAccount(pods, 'date');
  const ok = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', '{}');
  expect(ok.status).toBe(200);
  const stale = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', '{}', {
    date: new Date(Date.now() - 16 * 60 * 1000),
  });
  expect(stale.status).toBe(403);
  expect(stale.body.__type).toBe('com.amazonaws.sqs#SignatureDoesNotMatch');
  expect(stale.body.message).toMatch(/^Signature expired: \d{8}T\d{6}Z is more than 15 minutes/);
  expect(stale.headers.get('x-amzn-query-error')).toBe('SignatureDoesNotMatch;Sender');
  const future = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', '{}', {
    date: new Date(Date.now() + 16 * 60 * 1000),
  });
  expect(future.status).toBe(403);
  const service = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', '{}', {
    service: 's3',
  });
  expect(service.status).toBe(403);
  expect(service.body.message).toBe(
    "Credential should be scoped to correct service: 'sqs', not 's3'.",
  );
});

test('a body changed after signing fails the signature', async () => {
  const { keys } = await sqsAccount(pods, 'tamper');
  const res = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', '{}', {
    headers: { 'x-amz-content-sha256': '0'.repeat(64) },
  });
  expect(res.status).toBe(403);
  expect(res.body.__type).toBe('com.amazonaws.sqs#SignatureDoesNotMatch');
});

test('errors come in SQS shape, never the relay envelope', async () => {
  const none = await fetch(`${pods.a.baseUrl}/sqs`, { method: 'POST', body: '{}' });
  expect(none.status).toBe(403);
  expect(none.headers.get('content-type')).toBe('application/x-amz-json-1.0');
  expect(none.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
  expect(await none.json()).toEqual({
    __type: 'com.amazonaws.sqs#MissingAuthenticationToken',
    message: 'Request is missing Authentication Token: sign it with AWS Signature Version 4',
  });
  const below = await fetch(`${pods.a.baseUrl}/sqs/acme/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0' },
  });
  expect(below.status).toBe(403);
  expect((await below.json()).__type).toBe('com.amazonaws.sqs#MissingAuthenticationToken');
  // a request that names no protocol is answered as the query protocol answers: XML
  const get = await fetch(`${pods.a.baseUrl}/sqs/`);
  expect(get.status).toBe(403);
  expect(get.headers.get('content-type')).toBe('text/xml');
  expect(await get.text()).toContain('<Code>MissingAuthenticationToken</Code>');
  const put = await fetch(`${pods.a.baseUrl}/sqs/`, { method: 'PUT', body: '{}' });
  expect(put.status).toBe(400);
  expect((await put.json()).__type).toBe('com.amazonaws.sqs#InvalidAction');
  const malformed = await fetch(`${pods.a.baseUrl}/sqs`, {
    method: 'POST',
    headers: { authorization: 'AWS4-HMAC-SHA256 Credential=x', 'x-amz-target': 'AmazonSQS.X' },
  });
  expect(malformed.status).toBe(400);
  expect((await malformed.json()).__type).toBe('com.amazonaws.sqs#IncompleteSignature');
});

test('unsupported actions are UnsupportedOperation, unknown ones InvalidAction; never a 5xx', async () => {
  const { sqsA, keys } = await sqsAccount(pods, 'actions');
  await sqsA.send(new CreateQueueCommand({ QueueName: 'q' }));
  expect(
    await sqsError(
      sqsA.send(
        new AddPermissionCommand({ QueueUrl: 'x', Label: 'l', AWSAccountIds: [], Actions: [] }),
      ),
    ),
  ).toMatchObject({ name: 'UnsupportedOperation', status: 400 });
  for (const action of ['AddPermission', 'StartMessageMoveTask', 'ListMessageMoveTasks']) {
    const res = await signedRequest(pods.a, keys, `AmazonSQS.${action}`, '{}');
    expect(res.status).toBe(400);
    expect(res.body.__type).toBe('com.amazonaws.sqs#UnsupportedOperation');
    expect(res.headers.get('x-amzn-query-error')).toBe(
      'AWS.SimpleQueueService.UnsupportedOperation;Sender',
    );
  }
  const unknown = await signedRequest(pods.a, keys, 'AmazonSQS.Frobnicate', '{}');
  expect(unknown.status).toBe(400);
  expect(unknown.body.__type).toBe('com.amazonaws.sqs#InvalidAction');
  const notJson = await signedRequest(pods.a, keys, 'AmazonSQS.ListQueues', 'not json');
  expect(notJson.status).toBe(400);
  expect(notJson.body.__type).toBe('com.amazonaws.sqs#InvalidParameterValue');
});

test('without RELAY_SQS_SECRET_KEY, aws_credentials is a 400 naming the setting', async () => {
  const { startListeningApp } = await import('../../helpers/app');
  const plain = await startListeningApp(pods.redis);
  try {
    const id = accountId('nokey');
    await plain.relay.store.accounts.create(id, 'free');
    const res = await plain.http
      .post(`/v1/admin/accounts/${id}/tokens`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ aws_credentials: true });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe(
      'aws_credentials needs the server setting RELAY_SQS_SECRET_KEY; ask the operator to set it',
    );
  } finally {
    await plain.close();
  }
});

test('over the rate limit, a request is RequestThrottled (403) with Retry-After', async () => {
  const { startListeningApp } = await import('../../helpers/app');
  const limited = await startListeningApp(pods.redis, {
    RELAY_SQS_SECRET_KEY: 'sqs-test-server-key-0123456789abcdef',
    RELAY_RATE_LIMIT_PER_SECOND: '1',
    RELAY_RATE_LIMIT_BURST: '2',
  });
  try {
    const { keys } = await sqsAccount(pods, 'rate');
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(await signedRequest(limited, keys, 'AmazonSQS.ListQueues', '{}'));
    }
    expect(results.map((r) => r.status)).toEqual([200, 200, 403]);
    expect(results[2].body.__type).toBe('com.amazonaws.sqs#RequestThrottled');
    expect(results[2].headers.get('x-amzn-query-error')).toBe('RequestThrottled;Sender');
    expect(Number(results[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  } finally {
    await limited.close();
  }
});

test('malformed input to every action is a 4xx in SQS shape, never a 5xx', async () => {
  const { keys, sqsA, relay, urlOf } = await sqsAccount(pods, 'fuzz');
  const { QueueUrl } = await sqsA.send(new CreateQueueCommand({ QueueName: 'f' }));
  await relay.sendOk('f', { body: 'some message' });
  const { ACTIONS } = await import('../../../src/sqs/actions');
  const bodies = [
    'null',
    '[]',
    '"text"',
    '{"QueueUrl":5}',
    `{"QueueUrl":"${QueueUrl}","Entries":[1,null,"x"]}`,
    `{"QueueUrl":"${QueueUrl}","Entries":{"Id":"a"}}`,
    `{"QueueUrl":"${QueueUrl}","MessageBody":"x","MessageAttributes":{"a":null}}`,
    `{"QueueUrl":"${QueueUrl}","MessageBody":"x","MessageAttributes":[1]}`,
    `{"QueueUrl":"${QueueUrl}","Attributes":{"VisibilityTimeout":5}}`,
    `{"QueueUrl":"${QueueUrl}","MaxNumberOfMessages":"5","AttributeNames":[1]}`,
    `{"QueueUrl":"${QueueUrl}","ReceiptHandle":{"a":1},"VisibilityTimeout":1e309}`,
    `{"QueueUrl":"${urlOf('f')}/extra","QueueName":{"a":1},"__proto__":{"x":1}}`,
    `{"QueueName":"f","Attributes":{"RedrivePolicy":"{\\"deadLetterTargetArn\\":5}"}}`,
    `{"QueueNamePrefix":7,"MaxResults":1.5,"NextToken":{}}`,
  ];
  for (const action of Object.keys(ACTIONS)) {
    for (const body of bodies) {
      const res = await signedRequest(pods.a, keys, `AmazonSQS.${action}`, body);
      if (res.status === 200) continue;
      expect({ action, body, status: res.status < 500 }).toEqual({ action, body, status: true });
      expect(res.body.__type).toMatch(/^com\.amazonaws\.sqs#[A-Za-z]+$/);
    }
  }
  // (the bodies that are valid for some action, such as PurgeQueue with extra members, ran)
  expect((await signedRequest(pods.b, keys, 'AmazonSQS.ListQueues', '{}')).status).toBe(200);
});

test('X-Amz-Target and Content-Type must be signed: a captured request cannot become another action', async () => {
  const acct = await sqsAccount(pods, 'target');
  await acct.sqsA.send(new CreateQueueCommand({ QueueName: 'jobs' }));
  const QueueUrl = acct.urlOf('jobs');
  const body = JSON.stringify({ QueueUrl, MessageBody: 'hello' });
  for (const unsigned of ['x-amz-target', 'content-type']) {
    const res = await signedRequest(pods.a, acct.keys, 'AmazonSQS.SendMessage', body, {
      unsigned: [unsigned],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      __type: 'com.amazonaws.sqs#IncompleteSignature',
      message: `the ${unsigned} header must be signed`,
    });
  }
  // nothing was stored by the refused requests
  expect((await acct.relay.channel('jobs')).body.result.queued).toBe(0);
});
