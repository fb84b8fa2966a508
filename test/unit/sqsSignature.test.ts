/**
 * The SigV4 check (src/sqs/signature.ts) against Smithy's own signer: requests signed by
 * @smithy/signature-v4's SignatureV4 (what the AWS SDKs sign with), with awkward paths,
 * queries and headers, pass; any change to a signed part fails.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { parseAuthorization, verifySignature } from '../../src/sqs/signature';

const SECRET = 'a-secret-access-key';

interface Case {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: string;
}

const DATE = new Date(Date.UTC(2026, 10, 26, 10, 0, 0));

async function signed(c: Case, region = 'eu-west-1') {
  const signer = new SignatureV4({
    credentials: { accessKeyId: 'AKID', secretAccessKey: SECRET },
    region,
    service: 'sqs',
    sha256: Hash.bind(null, 'sha256'),
  });
  const out = await signer.sign(
    { protocol: 'http:', hostname: c.headers.host, ...c, body: Buffer.from(c.body) },
    { signingDate: DATE },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(out.headers)) headers[name.toLowerCase()] = value;
  return headers;
}

function check(c: Case, headers: Record<string, string>, secret = SECRET): Promise<void> {
  return verifySignature(
    parseAuthorization(headers.authorization),
    { method: c.method, path: c.path, query: c.query, headers, body: Buffer.from(c.body) },
    DATE,
    secret,
  );
}

const CASES: Case[] = [
  {
    method: 'POST',
    path: '/sqs',
    query: {},
    headers: {
      host: '127.0.0.1:8080',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.SendMessage',
    },
    body: '{"QueueUrl":"http://127.0.0.1:8080/sqs/acct/q","MessageBody":"héllo"}',
  },
  {
    method: 'GET',
    path: '/sqs/acct/a%20queue/./x/../',
    query: { Action: 'ReceiveMessage', 'Attribute.Name': ['b c', 'a*'], Empty: '' },
    headers: {
      host: 'relay.example', // the empty body's hash, declared
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      date: 'now',
    },
    body: '',
  },
  {
    method: 'POST',
    path: '/',
    query: {},
    headers: {
      host: 'relay.example',
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      'x-custom': '  spaced   value ',
    },
    body: 'Action=SendMessage&MessageBody=%F0%9F%98%80&Version=2012-11-05',
  },
];

test.each(CASES.map((c, i) => [i, c] as const))(
  'case %i: what Smithy signs passes, any change fails',
  async (_, c) => {
    const headers = await signed(c);
    await expect(check(c, headers)).resolves.toBeUndefined();
    // again: the signing key now from Smithy's cache
    await expect(check(c, headers)).resolves.toBeUndefined();
    const fails = (changed: Case, h = headers, secret = SECRET) =>
      expect(check(changed, h, secret)).rejects.toThrow(/signature|SHA-256/);
    await fails(c, headers, 'another-secret');
    await fails({ ...c, body: `${c.body} ` });
    await fails({ ...c, path: `${c.path}x` });
    await fails({ ...c, method: c.method === 'GET' ? 'POST' : 'GET' });
    await fails({ ...c, query: { ...c.query, extra: '1' } });
    await fails(c, { ...headers, host: 'other.example' });
  },
);
