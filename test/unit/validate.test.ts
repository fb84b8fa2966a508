/** Schemas and their error sentences: one plain sentence naming the field. */
import { RelayError } from '../../src/errors';
import { toEnvelope } from '../../src/web/envelope';
import { describeError, fieldPath } from '../../src/schemas/validate';
import {
  validateAck,
  validateBatch,
  validateMessage,
  validatePull,
} from '../../src/schemas/requests';

function messageOf(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof RelayError) return { status: toEnvelope(err).status, message: err.message };
    throw err;
  }
  throw new Error('expected a validation error');
}

test('fieldPath turns JSON pointers into field names', () => {
  expect(fieldPath('')).toBe('');
  expect(fieldPath('/delay_seconds')).toBe('delay_seconds');
  expect(fieldPath('/messages/3/delay_seconds')).toBe('messages[3].delay_seconds');
  expect(fieldPath('/messages/0')).toBe('messages[0]');
  expect(fieldPath('/a~1b/c~0d')).toBe('a/b.c~d');
});

test.each([
  [() => validateMessage({}), 'required field body is missing'],
  [() => validateMessage({ body: 1, delay_seconds: 86401 }), 'delay_seconds must be at most 86400'],
  [() => validateMessage({ body: 1, delay_seconds: -0.5 }), 'delay_seconds must be at least 0'],
  [() => validateMessage({ body: 1, delay_seconds: null }), 'delay_seconds must be a number'],
  [() => validateMessage({ body: 1, metadata: [] }), 'metadata must be a JSON object'],
  [
    () => validateMessage({ body: 1, content_type: 'csv' }),
    'content_type must be one of json, text, bytes, v8',
  ],
  [() => validateMessage({ body: 1, delay_second: 1 }), 'unknown field delay_second'],
  [() => validateMessage([]), 'request body must be a JSON object'],
  [
    () =>
      validateBatch({
        messages: [{ body: 1 }, { body: 1 }, { body: 1 }, { body: 1, delay_seconds: 86401 }],
      }),
    'messages[3].delay_seconds must be at most 86400',
  ],
  [
    () => validateBatch({ messages: [{ body: 1 }, {}] }),
    'required field messages[1].body is missing',
  ],
  [() => validateBatch({ messages: [{ body: 1, x: 1 }] }), 'unknown field messages[0].x'],
  [() => validateBatch({ messages: [] }), 'messages must have at least 1 entry'],
  [
    () => validateBatch({ messages: new Array(101).fill({ body: 1 }) }),
    'messages must have at most 100 entries',
  ],
  [() => validateBatch({ messages: {} }), 'messages must be an array'],
  [
    () => validatePull({ visibility_timeout_ms: 999 }),
    'visibility_timeout_ms must be at least 1000',
  ],
  [
    () => validatePull({ visibility_timeout_ms: 43200001 }),
    'visibility_timeout_ms must be at most 43200000',
  ],
  [() => validatePull({ batch_size: 0 }), 'batch_size must be at least 1'],
  [() => validatePull({ batch_size: 101 }), 'batch_size must be at most 100'],
  [() => validatePull({ batch_size: 1.5 }), 'batch_size must be an integer'],
  [
    () => validateAck({ lease_ids: new Array(101).fill('x') }),
    'lease_ids must have at most 100 entries',
  ],
  [
    () => validateAck({ lease_ids: ['a'.repeat(257)] }),
    'lease_ids[0] must be at most 256 characters',
  ],
  [() => validateAck({ lease_ids: [null] }), 'lease_ids[0] must be a string'],
])('%#: %s', (fn, message) => {
  expect(messageOf(fn)).toEqual({ status: 400, message });
});

test('valid requests pass through unchanged', () => {
  const m = { body: null, content_type: 'text', delay_seconds: 1.25, metadata: { a: [1] } };
  expect(validateMessage(m)).toBe(m);
  expect(validatePull({})).toEqual({});
  expect(validatePull({ visibility_timeout_ms: 43200000, batch_size: 100 })).toEqual({
    visibility_timeout_ms: 43200000,
    batch_size: 100,
  });
  expect(validateAck({ lease_ids: [] })).toEqual({ lease_ids: [] });
});

test('describeError falls back to a sentence naming the field', () => {
  expect(
    describeError(
      { keyword: 'weird', instancePath: '/a/0', schemaPath: '', params: {}, message: 'is odd' },
      'request body',
    ),
  ).toBe('a[0] is odd');
});
