/** Request body parsing: strict UTF-8, JSON, nesting and number range. */
import { RelayError } from '../../src/errors';
import { toEnvelope } from '../../src/web/envelope';
import { bodyParserError, jsonBody, objectBody } from '../../src/web/body';

function failure(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof RelayError) return [toEnvelope(err).status, err.message];
    throw err;
  }
  throw new Error('expected an error');
}
const buf = (s: string) => Buffer.from(s);

test('no body or a blank body is undefined; objectBody makes it {}', () => {
  expect(jsonBody(undefined)).toBeUndefined();
  expect(jsonBody(Buffer.alloc(0))).toBeUndefined();
  expect(jsonBody(buf('  \n'))).toBeUndefined();
  expect(objectBody(Buffer.alloc(0))).toEqual({});
  expect(objectBody({ not: 'a buffer' })).toEqual({});
});

test('valid JSON is parsed', () => {
  expect(jsonBody(buf('{"body":[1,"é",null]}'))).toEqual({ body: [1, 'é', null] });
  expect(jsonBody(buf('null'))).toBeNull();
});

test.each([
  ['{"body":', 'request body is not valid JSON'],
  ["{'a':1}", 'request body is not valid JSON'],
  ['{"a":1}x', 'request body is not valid JSON'],
  ['{"body":1e309}', 'request body holds a number too large to represent'],
  ['[-1e999]', 'request body holds a number too large to represent'],
])('%s -> 400 %s', (text, message) => {
  expect(failure(() => jsonBody(buf(text)))).toEqual([400, message]);
});

test('invalid UTF-8 is a 400', () => {
  expect(failure(() => jsonBody(Buffer.from([0x7b, 0xff, 0x7d])))).toEqual([
    400,
    'request body is not valid UTF-8',
  ]);
  // an unpaired surrogate encoded in UTF-8 (CESU) is invalid too
  expect(failure(() => jsonBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])))).toEqual([
    400,
    'request body is not valid UTF-8',
  ]);
});

test('nesting: 128 levels pass, 129 are a 400', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  expect(() => jsonBody(buf(nested(128)))).not.toThrow();
  expect(failure(() => jsonBody(buf(nested(129))))).toEqual([
    400,
    'request body is nested deeper than 128 levels',
  ]);
  const objects = (n: number) => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1);
  expect(() => jsonBody(buf(objects(128)))).not.toThrow();
  expect(failure(() => jsonBody(buf(objects(129))))[0]).toBe(400);
});

test('objectBody refuses anything but an object', () => {
  for (const text of ['[]', 'null', '1', '"s"', 'true']) {
    expect(failure(() => objectBody(buf(text)))).toEqual([
      400,
      'request body must be a JSON object',
    ]);
  }
});

test('body-parser errors become envelope errors', () => {
  expect(bodyParserError({ type: 'entity.too.large', status: 413 })).toEqual(
    expect.objectContaining({
      code: 'body_too_large',
      message: 'request body is over the 1048576-byte limit',
    }),
  );
  expect(bodyParserError({ type: 'request.aborted', status: 400 })?.code).toBe('invalid_request');
  expect(bodyParserError(new Error('plain'))).toBeNull();
});
