/** The envelope of every error, and the 500 that leaks nothing. */
import { AppError, INTERNAL_MESSAGE, okEnvelope, toEnvelope } from '../../src/errors';

test('an AppError keeps its status, message and headers', () => {
  const e = new AppError('METHOD_NOT_ALLOWED', 'method GET is not allowed here; use POST', {
    Allow: 'POST',
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
});

test.each([
  ['BAD_REQUEST', 400],
  ['UNAUTHORIZED', 401],
  ['FORBIDDEN', 403],
  ['NOT_FOUND', 404],
  ['CONFLICT', 409],
  ['PAYLOAD_TOO_LARGE', 413],
  ['UNSUPPORTED_MEDIA_TYPE', 415],
  ['RATE_LIMITED', 429],
  ['UNAVAILABLE', 503],
] as const)('%s is HTTP %d and errors[].code is the same', (code, status) => {
  const env = toEnvelope(new AppError(code, 'x'));
  expect(env.status).toBe(status);
  expect(env.body.errors[0].code).toBe(status);
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
});

test('okEnvelope', () => {
  expect(okEnvelope({ id: 'x' })).toEqual({
    success: true,
    errors: [],
    messages: [],
    result: { id: 'x' },
  });
});
