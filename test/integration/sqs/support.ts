/** Set-up for the SQS tests: two listening pods over one Redis, and real SQS clients (not a test file). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { ADMIN_TOKEN, type ListeningApp } from '../../helpers/app';
import type { TestRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { accountId } from '../../helpers/pods';
import { relay } from '../../helpers/relayClient';

export const SQS_KEY = 'sqs-test-server-key-0123456789abcdef';

export interface SqsPods {
  redis: TestRedis;
  a: ListeningApp;
  b: ListeningApp;
}

const clients: SQSClient[] = [];

export function useSqsPods(env: Record<string, string> = {}): SqsPods {
  const pods = useRelay({
    pods: 2,
    listen: true,
    env: { RELAY_SQS_SECRET_KEY: SQS_KEY, ...env },
    flush: false,
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.destroy();
  });
  return pods;
}

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A real @aws-sdk/client-sqs client for a pod, without retries (errors surface at once). */
export function sqsClient(app: ListeningApp, keys: AwsKeys, region = 'us-east-1'): SQSClient {
  const c = new SQSClient({
    endpoint: `${app.baseUrl}/sqs`,
    region,
    credentials: keys,
    maxAttempts: 1,
  });
  clients.push(c);
  return c;
}

/** Issues a token with AWS credentials through the admin API. */
export async function issueAwsToken(
  app: ListeningApp,
  account: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; token: string; keys: AwsKeys }> {
  const res = await app.http
    .post(`/v1/admin/accounts/${account}/tokens`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ aws_credentials: true, ...body });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  const r = res.body.result;
  return {
    id: r.id,
    token: r.token,
    keys: { accessKeyId: r.aws_access_key_id, secretAccessKey: r.aws_secret_access_key },
  };
}

/** A fresh account with an AWS-enabled token: SQS clients on both pods and a relay API client. */
export async function sqsAccount(
  pods: SqsPods,
  prefix: string,
  options: { plan?: string; channels?: string[]; expires_in_seconds?: number } = {},
) {
  const id = accountId(prefix);
  await pods.a.relay.store.accounts.create(id, options.plan ?? 'free');
  const { plan: _plan, ...tokenOptions } = options;
  const issued = await issueAwsToken(pods.a, id, tokenOptions);
  return {
    id,
    tokenId: issued.id,
    keys: issued.keys,
    auth: `Bearer ${issued.token}`,
    sqsA: sqsClient(pods.a, issued.keys),
    sqsB: sqsClient(pods.b, issued.keys),
    relay: relay(pods.a, `Bearer ${issued.token}`),
    urlOf: (queue: string) => `${pods.a.baseUrl}/sqs/${id}/${queue}`,
  };
}

/** The error an SDK call rejects with (fails the test when it resolves). */
export async function sqsError(
  promise: Promise<unknown>,
): Promise<{ name: string; message: string; status?: number; code?: string }> {
  try {
    await promise;
  } catch (err) {
    const e = err as {
      name: string;
      message: string;
      Code?: string;
      $metadata?: { httpStatusCode?: number };
    };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode, code: e.Code };
  }
  throw new Error('expected the call to fail');
}

/**
 * A hand-made SQS request, signed with SigV4 by Smithy's signer (the AWS SDK's
 * own), for what the SDK will not send: old dates, other services, raw bodies.
 */
export async function signedRequest(
  app: ListeningApp,
  keys: AwsKeys,
  target: string,
  body: string,
  options: {
    date?: Date;
    service?: string;
    headers?: Record<string, string>;
    path?: string;
    /** headers sent but left out of the signature */
    unsigned?: string[];
  } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; body: any }> {
  const url = new URL(`${app.baseUrl}${options.path ?? '/sqs/'}`);
  const signer = new SignatureV4({
    credentials: keys,
    region: 'us-east-1',
    service: options.service ?? 'sqs',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': target,
        ...options.headers,
      },
      body,
    },
    {
      signingDate: options.date ?? new Date(),
      ...(options.unsigned ? { unsignableHeaders: new Set(options.unsigned) } : {}),
    },
  );
  const res = await fetch(url, {
    method: 'POST',
    headers: signed.headers as Record<string, string>,
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}
