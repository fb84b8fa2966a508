/**
 * The domain error codes (src/errors.ts) and how each entrance tells them: the envelope's
 * HTTP status (relay and account API, WebSocket upgrades, webhook URLs) and SQS's code.
 * Every code has a mapping in every entrance, and a 500 leaks nothing.
 */
import { ERROR_CODES, INTERNAL_MESSAGE, RelayError, type ErrorCode } from '../../src/errors';
import { SQS_CODES, toSqsError } from '../../src/sqs/errors';
import { HTTP_STATUS, okEnvelope, toEnvelope } from '../../src/web/envelope';

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

test('a RelayError keeps its code, message and details; the envelope adds the headers', () => {
  const e = new RelayError('method_not_allowed', 'method GET is not allowed here; use POST', {
    allow: ['POST'],
  });
  expect(toEnvelope(e)).toEqual({
    status: 405,
    headers: { Allow: 'POST' },
    body: {
      success: false,
      errors: [{ code: 405, message: 'method GET is not allowed here; use POST' }],
      messages: [],
      result: null,
    },
  });
  const limited = new RelayError('rate_limited', 'slow down', { retryAfterSeconds: 3 });
  expect(toEnvelope(limited).headers).toEqual({ 'Retry-After': '3' });
  const closing = new RelayError('body_too_large', 'too big', { closeConnection: true });
  expect(toEnvelope(closing).headers).toEqual({ Connection: 'close' });
});

test('every code has an HTTP status and an SQS code, and nothing else is mapped', () => {
  expect(Object.keys(HTTP_STATUS).sort()).toEqual([...codes].sort());
  expect(Object.keys(SQS_CODES).sort()).toEqual([...codes].sort());
  for (const code of codes) {
    const env = toEnvelope(new RelayError(code, 'x'));
    expect(env.status).toBeGreaterThanOrEqual(400);
    expect(env.body.errors[0].code).toBe(env.status);
    const sqs = toSqsError(new RelayError(code, 'x'));
    expect(sqs.code).toBe(SQS_CODES[code]);
  }
});

test.each([
  ['invalid_field', 400, 'InvalidParameterValue'],
  ['message_too_large', 413, 'InvalidParameterValue'],
  ['invalid_credential', 401, 'InvalidClientTokenId'],
  ['channel_scope', 403, 'AccessDenied'],
  ['storage_limit', 403, 'OverLimit'],
  ['channel_limit', 403, 'OverLimit'],
  ['channel_not_found', 404, 'QueueDoesNotExist'],
  ['conflict', 409, 'QueueNameExists'],
  ['rate_limited', 429, 'RequestThrottled'],
  ['concurrency_limit', 429, 'RequestThrottled'],
  ['unavailable', 503, 'ServiceUnavailable'],
] as const)('%s is HTTP %d and SQS %s', (code, status, sqsCode) => {
  expect(toEnvelope(new RelayError(code, 'x')).status).toBe(status);
  expect(toSqsError(new RelayError(code, 'x')).code).toBe(sqsCode);
});

test('SQS keeps the Retry-After of a refusal', () => {
  const err = toSqsError(new RelayError('rate_limited', 'slow', { retryAfterSeconds: 2 }));
  expect(err.headers).toEqual({ 'Retry-After': '2' });
  expect(err.status).toBe(403);
});

test('a thrown plain Error is a 500 with a generic message: no stack, no internals', () => {
  const err = new Error('ECONNRESET at /srv/app/src/store/queue.ts:42 password=hunter2');
  const env = toEnvelope(err);
  expect(env).toEqual({
    status: 500,
    headers: {},
    body: {
      success: false,
      errors: [{ code: 500, message: INTERNAL_MESSAGE }],
      messages: [],
      result: null,
    },
  });
  const text = JSON.stringify(env);
  expect(text).not.toContain('queue.ts');
  expect(text).not.toContain('hunter2');
  expect(text).not.toContain('stack');
  expect(toEnvelope('a string').status).toBe(500);
  expect(toEnvelope(undefined).status).toBe(500);
  expect(toSqsError(err).code).toBe('InternalFailure');
  expect(toSqsError(err).message).not.toContain('hunter2');
});

test('okEnvelope', () => {
  expect(okEnvelope({ id: 'x' })).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { id: 'x' },
  });
});
