/** Invalid filters: each problem is a FilterError naming its path (src/filters/validate.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { FilterError, MAX_FILTER_BYTES, parseFilter } from '../../src/filters';

/** The error parseFilter throws for `filter` under `path`. */
function problem(filter: unknown, path = 'routes[2].filter'): FilterError {
  try {
    parseFilter(filter, path);
  } catch (err) {
    expect(err).toBeInstanceOf(FilterError);
    return err as FilterError;
  }
  throw new Error(`accepted: ${JSON.stringify(filter)}`);
}

const OPERATORS =
  '$eq, $neq, $in, $nin, $exist, $gt, $gte, $lt, $lte, $startsWith, $endsWith, $contains, $or, $and, $not';
const KEYS = 'headers, query, metadata, body, $or, $and, $not';

test.each<[string, unknown, string, string]>([
  ['a filter that is no object', 'x', 'routes[2].filter', 'must be an object'],
  ['an array filter', [{ body: 1 }], 'routes[2].filter', 'must be an object'],
  ['a null filter', null, 'routes[2].filter', 'must be an object'],
  ['an absent filter', undefined, 'routes[2].filter', 'must be an object'],
  [
    'an unknown top-level key',
    { payload: {} },
    'routes[2].filter.payload',
    `is not a filter key; use ${KEYS}`,
  ],
  [
    'a value operator at the top',
    { $exist: true },
    'routes[2].filter.$exist',
    `is not a filter key; use ${KEYS}`,
  ],
  [
    'an unknown operator',
    { body: { amount: { $foo: 1 } } },
    'routes[2].filter.body.amount.$foo',
    `is not an operator; use ${OPERATORS}`,
  ],
  [
    'a Hookdeck $ref',
    { body: { a: { $ref: 'b' } } },
    'routes[2].filter.body.a.$ref',
    `is not an operator; use ${OPERATORS}`,
  ],
  [
    '$gte of a boolean',
    { body: { amount: { $gte: true } } },
    'routes[2].filter.body.amount.$gte',
    'must be a number or a string',
  ],
  [
    '$gt of null',
    { body: { a: { $gt: null } } },
    'routes[2].filter.body.a.$gt',
    'must be a number or a string',
  ],
  [
    '$lt of an array',
    { body: { a: { $lt: [1] } } },
    'routes[2].filter.body.a.$lt',
    'must be a number or a string',
  ],
  [
    '$lte of an object',
    { body: { a: { $lte: {} } } },
    'routes[2].filter.body.a.$lte',
    'must be a number or a string',
  ],
  [
    '$exist of a string',
    { body: { a: { $exist: 'yes' } } },
    'routes[2].filter.body.a.$exist',
    'must be a boolean',
  ],
  [
    '$exist of 1',
    { headers: { a: { $exist: 1 } } },
    'routes[2].filter.headers.a.$exist',
    'must be a boolean',
  ],
  [
    '$in of a string',
    { body: { a: { $in: 'abc' } } },
    'routes[2].filter.body.a.$in',
    'must be an array',
  ],
  [
    '$nin of a number',
    { body: { a: { $nin: 1 } } },
    'routes[2].filter.body.a.$nin',
    'must be an array',
  ],
  [
    '$startsWith of a number',
    { body: { a: { $startsWith: 1 } } },
    'routes[2].filter.body.a.$startsWith',
    'must be a string',
  ],
  [
    '$endsWith of null',
    { body: { a: { $endsWith: null } } },
    'routes[2].filter.body.a.$endsWith',
    'must be a string',
  ],
  [
    '$contains of an array',
    { body: { a: { $contains: ['x'] } } },
    'routes[2].filter.body.a.$contains',
    'must be a string',
  ],
  [
    '$or of an object',
    { body: { a: { $or: { b: 1 } } } },
    'routes[2].filter.body.a.$or',
    'must be a non-empty array',
  ],
  ['an empty $or', { $or: [] }, 'routes[2].filter.$or', 'must be a non-empty array'],
  [
    'an empty $and',
    { body: { $and: [] } },
    'routes[2].filter.body.$and',
    'must be a non-empty array',
  ],
  [
    'a top-level $or item that is no object',
    { $or: [{ body: 1 }, 'x'] },
    'routes[2].filter.$or[1]',
    'must be an object',
  ],
  [
    'a top-level $not that is no object',
    { $not: true },
    'routes[2].filter.$not',
    'must be an object',
  ],
  [
    'an unknown key inside a top-level $and',
    { $and: [{ bdy: 1 }] },
    'routes[2].filter.$and[0].bdy',
    `is not a filter key; use ${KEYS}`,
  ],
  [
    'a bad operator deep inside $or, $not and arrays',
    { body: { items: [{ $not: { $or: [1, { $gt: {} }] } }] } },
    'routes[2].filter.body.items[0].$not.$or[1].$gt',
    'must be a number or a string',
  ],
  [
    'an upper-case header name',
    { headers: { 'X-GitHub-Event': 'push' } },
    'routes[2].filter.headers.X-GitHub-Event',
    'must be a lower-case header name',
  ],
  [
    'an upper-case header name inside $or',
    { headers: { $or: [{ 'x-a': '1' }, { 'X-B': '2' }] } },
    'routes[2].filter.headers.$or[1].X-B',
    'must be a lower-case header name',
  ],
])('%s', (_, filter, path, message) => {
  const err = problem(filter);
  expect(err.path).toBe(path);
  expect(err.message).toBe(`${path} ${message}`);
});

test('the path prefix is the caller’s: history search passes `filter`', () => {
  const err = problem({ body: { amount: { $gte: 'x', $lte: false } } }, 'filter');
  expect(err.message).toBe('filter.body.amount.$lte must be a number or a string');
});

test('lower-case names are only required of headers, not of fields inside a header condition or elsewhere', () => {
  expect(() =>
    parseFilter(
      {
        body: { Type: 'X' },
        query: { Tag: 'A' },
        metadata: { Source: 1 },
        headers: { 'x-a': { $eq: { B: 1 } } },
      },
      'filter',
    ),
  ).not.toThrow();
});

test('values that JSON cannot hold are refused (filters built in code)', () => {
  expect(problem({ body: { a: NaN } }).message).toBe(
    'routes[2].filter.body.a must be a JSON value',
  );
  expect(problem({ body: { a: { $eq: [1, Infinity] } } }).message).toBe(
    'routes[2].filter.body.a.$eq[1] must be a JSON value',
  );
  expect(problem({ body: { a: { $in: [new Date(0)] } } }).message).toBe(
    'routes[2].filter.body.a.$in[0] must be a JSON value',
  );
  expect(problem({ body: { a: undefined } }).message).toBe(
    'routes[2].filter.body.a must be a JSON value',
  );
  expect(problem(new Map()).message).toBe('routes[2].filter must be an object');
});

describe('the size limit', () => {
  /** A filter whose compact JSON is exactly `bytes` long. */
  const sized = (bytes: number) => {
    const frame = JSON.stringify({ body: { note: '' } }).length;
    return { body: { note: 'x'.repeat(bytes - frame) } };
  };

  test(`a filter of ${MAX_FILTER_BYTES} bytes of compact JSON is accepted, one more byte is not`, () => {
    expect(MAX_FILTER_BYTES).toBe(4096);
    expect(JSON.stringify(sized(4096))).toHaveLength(4096);
    expect(() => parseFilter(sized(4096), 'routes[0].filter')).not.toThrow();
    const err = problem(sized(4097), 'routes[7].filter');
    expect(err.path).toBe('routes[7].filter');
    expect(err.message).toBe(
      'routes[7].filter is 4097 bytes as compact JSON; the limit is 4096 bytes',
    );
  });

  test('the limit counts UTF-8 bytes, not characters', () => {
    // "é" is 2 bytes: 2,038 of them fill the 4,076 bytes that the frame leaves
    const frame = JSON.stringify({ body: { note: '' } }).length;
    const note = 'é'.repeat((4096 - frame) / 2);
    expect(() => parseFilter({ body: { note } }, 'filter')).not.toThrow();
    expect(problem({ body: { note: `${note}x` } }).message).toBe(
      'routes[2].filter is 4097 bytes as compact JSON; the limit is 4096 bytes',
    );
  });

  test('the size is checked before anything inside', () => {
    const err = problem({ body: { a: { $foo: 'x'.repeat(5000) } } });
    expect(err.path).toBe('routes[2].filter');
  });

  test('a filter nested too deeply to serialize is over the limit, not a crash', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 100_000; i++) {
      const next = {};
      deep.a = next;
      deep = next;
    }
    expect(problem({ body: top }).message).toBe(
      'routes[2].filter is too large as compact JSON; the limit is 4096 bytes',
    );
  });
});

test('a valid filter keeps its source as given', () => {
  const source = {
    headers: { 'x-github-event': 'push' },
    body: { ref: { $startsWith: 'refs/tags/' } },
  };
  expect(parseFilter(source, 'filter').source).toBe(source);
});

test('every filter in docs/api/filters.md is valid', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/api/filters.md'), 'utf8');
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  // the blocks with `//` lines show a message next to filters, one JSON value per line
  const filters = blocks.flatMap((block) =>
    block.includes('//') ? block.split('\n').filter((line) => line.startsWith('{"body"')) : [block],
  );
  expect(filters.length).toBeGreaterThanOrEqual(10);
  for (const text of filters) expect(() => parseFilter(JSON.parse(text), 'filter')).not.toThrow();
});
