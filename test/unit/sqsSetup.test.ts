/** SQS set-up pieces that need no Redis: the server key setting, the quick start's key file, key ids, signature headers. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { accessKeyIdFor, parseAccessKeyId, secretFor } from '../../src/auth/awsKeys';
import { SqsError } from '../../src/sqs/errors';
import { embeddedSqsSecretKey } from '../../src/embedded/sqsQuickStart';
import { parseAuthorization, signingDate } from '../../src/sqs/signature';

test('RELAY_SQS_SECRET_KEY: unset is null, under 32 characters stops the start', () => {
  expect(loadConfig({}).sqsSecretKey).toBeNull();
  const key = 'k'.repeat(32);
  expect(loadConfig({ RELAY_SQS_SECRET_KEY: key }).sqsSecretKey).toBe(key);
  expect(() => loadConfig({ RELAY_SQS_SECRET_KEY: 'short' })).toThrow(
    new ConfigError('RELAY_SQS_SECRET_KEY must be at least 32 characters'),
  );
});

test('the quick start makes its key once, mode 0600, and reuses it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-sqs-'));
  try {
    const first = embeddedSqsSecretKey(dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.statSync(path.join(dir, 'sqs-secret-key')).mode & 0o777).toBe(0o600);
    expect(embeddedSqsSecretKey(dir)).toBe(first);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an access key id names its account and token; the secret depends on the server key', () => {
  const id = accessKeyIdFor('acme.eu-1', '0123456789abcdef');
  expect(id).toBe('RQ0123456789abcdefacme.eu-1');
  expect(parseAccessKeyId(id)).toEqual({ accountId: 'acme.eu-1', tokenId: '0123456789abcdef' });
  for (const bad of [
    'AKIAIOSFODNN7EXAMPLE',
    'RQ0123',
    'RQ0123456789ABCDEFacme',
    'RQ0123456789abcdef.x',
  ])
    expect(parseAccessKeyId(bad)).toBeNull();
  expect(secretFor('a'.repeat(32), id)).not.toBe(secretFor('b'.repeat(32), id));
  expect(secretFor('a'.repeat(32), id)).toBe(secretFor('a'.repeat(32), id));
});

test('Authorization headers are parsed strictly; X-Amz-Date must match the scope and the clock', () => {
  const sig = 'a'.repeat(64);
  const auth = parseAuthorization(
    `AWS4-HMAC-SHA256 Credential=KEY/20260101/eu-west-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=${sig}`,
  );
  expect(auth).toEqual({
    accessKeyId: 'KEY',
    scopeDate: '20260101',
    region: 'eu-west-1',
    service: 'sqs',
    signedHeaders: ['host', 'x-amz-date'],
    signature: sig,
  });
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return (err as SqsError).code;
    }
    return 'none';
  };
  expect(code(() => parseAuthorization(undefined))).toBe('MissingAuthenticationToken');
  expect(code(() => parseAuthorization('Bearer rq_x'))).toBe('IncompleteSignature');
  expect(
    code(() =>
      parseAuthorization(
        `AWS4-HMAC-SHA256 Credential=KEY/2026/x/sqs/aws4_request, SignedHeaders=host, Signature=${sig}`,
      ),
    ),
  ).toBe('IncompleteSignature');
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  expect(signingDate(auth, { 'x-amz-date': '20260101T115000Z' }, now).toISOString()).toBe(
    '2026-01-01T11:50:00.000Z',
  );
  expect(code(() => signingDate(auth, { 'x-amz-date': '20260101T114459Z' }, now))).toBe(
    'SignatureDoesNotMatch',
  );
  expect(code(() => signingDate(auth, { 'x-amz-date': '20260102T120000Z' }, now))).toBe(
    'SignatureDoesNotMatch',
  );
  expect(code(() => signingDate(auth, {}, now))).toBe('IncompleteSignature');
});
