/** The filter matcher's semantics (src/filters, docs/api/filters.md): no Redis, no HTTP. */
import fc from 'fast-check';
import { matches, parseFilter, type FilterInput } from '../../src/filters';

const input = (parts: Partial<FilterInput> = {}): FilterInput => ({
  body: undefined,
  headers: {},
  query: {},
  metadata: {},
  ...parts,
});

/** Whether `{"body": condition}` matches a message whose JSON body is `body` (undefined: no JSON body). */
const onBody = (condition: unknown, body: unknown): boolean =>
  matches(parseFilter({ body: condition }, 'filter'), input({ body }));

/** Whether `{"body": {"x": condition}}` matches the body `{"x": value}` (undefined: x absent). */
const onX = (condition: unknown, value: unknown): boolean =>
  onBody({ x: condition }, value === undefined ? { other: 1 } : { x: value });

describe('literals', () => {
  test('equality is type-strict', () => {
    expect(onX(100, 100)).toBe(true);
    expect(onX(100, '100')).toBe(false);
    expect(onX('100', 100)).toBe(false);
    expect(onX(true, true)).toBe(true);
    expect(onX(true, 1)).toBe(false);
    expect(onX(false, 0)).toBe(false);
    expect(onX(null, null)).toBe(true);
    expect(onX(null, false)).toBe(false);
    expect(onX('', '')).toBe(true);
    expect(onX(0, -0)).toBe(true);
  });

  test('a literal on an absent field, or on an object, is false', () => {
    expect(onX(null, undefined)).toBe(false);
    expect(onX(1, { a: 1 })).toBe(false);
  });

  test('a literal on an array field matches when any element equals it', () => {
    expect(onX('gift', ['card', 'gift'])).toBe(true);
    expect(onX('gift', ['card'])).toBe(false);
    expect(onX(1, ['1'])).toBe(false);
    expect(onX('gift', [])).toBe(false);
  });

  test('a literal body matches a body that is that value', () => {
    expect(onBody('ping', 'ping')).toBe(true);
    expect(onBody(false, false)).toBe(true);
    expect(onBody(false, null)).toBe(false);
  });
});

describe('nested objects', () => {
  const event = {
    type: 'invoice.paid',
    data: { object: { amount: 5000, currency: 'usd', customer: { email: 'a@example.com' } } },
  };

  test('match inside, at any depth, ignoring other fields', () => {
    expect(onBody({ data: { object: { currency: 'usd' } } }, event)).toBe(true);
    expect(onBody({ data: { object: { customer: { email: 'a@example.com' } } } }, event)).toBe(
      true,
    );
    expect(onBody({ type: 'invoice.paid', data: { object: { amount: 5000 } } }, event)).toBe(true);
    expect(onBody({ type: 'invoice.paid', data: { object: { amount: 4999 } } }, event)).toBe(false);
    expect(onBody({ data: { object: { missing: 'x' } } }, event)).toBe(false);
  });

  test('an object condition on a scalar, or on a missing parent, sees absent fields', () => {
    expect(onBody({ type: { sub: 'x' } }, event)).toBe(false);
    expect(onBody({ type: { sub: { $exist: false } } }, event)).toBe(true);
    expect(onBody({ nothing: { here: { $exist: false } } }, event)).toBe(true);
    expect(onBody({ nothing: { here: { $exist: true } } }, event)).toBe(false);
  });

  test('an empty object has no condition and matches anything', () => {
    expect(onBody({}, event)).toBe(true);
    expect(onBody({}, undefined)).toBe(true);
    expect(onBody({ type: {} }, event)).toBe(true);
    expect(matches(parseFilter({}, 'filter'), input())).toBe(true);
  });
});

describe('arrays', () => {
  const product = { tags: ['gift', 'something', 'another'], sizes: [1, 2, 3] };

  test('an array in a filter matches when the field array contains every element', () => {
    expect(onBody({ tags: ['gift', 'something'] }, product)).toBe(true);
    expect(onBody({ tags: ['something', 'gift'] }, product)).toBe(true);
    expect(onBody({ tags: ['gift', 'missing'] }, product)).toBe(false);
    expect(onBody({ sizes: [3, 1] }, product)).toBe(true);
    expect(onBody({ sizes: ['3'] }, product)).toBe(false);
    expect(onBody({ tags: [] }, product)).toBe(true);
  });

  test('an array in a filter does not match a scalar or an absent field', () => {
    expect(onX(['a'], 'a')).toBe(false);
    expect(onX([], undefined)).toBe(false);
    expect(onX([], { a: 1 })).toBe(false);
  });

  test('the items of a filter array may be conditions', () => {
    expect(onBody({ sizes: [{ $gte: 3 }, { $lt: 2 }] }, product)).toBe(true);
    expect(onBody({ sizes: [{ $gt: 3 }] }, product)).toBe(false);
  });

  test('an object condition on an array of objects needs one element that holds all of it', () => {
    const order = {
      items: [
        { id: 456, title: 'My product', qty: 1 },
        { id: 789, title: 'Other', qty: 5 },
      ],
    };
    expect(onBody({ items: { id: 456 } }, order)).toBe(true);
    expect(onBody({ items: { id: 789, qty: { $gt: 2 } } }, order)).toBe(true);
    expect(onBody({ items: { id: 456, qty: { $gt: 2 } } }, order)).toBe(false);
    expect(onBody({ items: { id: 1 } }, order)).toBe(false);
    expect(onBody({ items: { id: 456 } }, { items: [] })).toBe(false);
  });

  test('an array of arrays: an element array is matched as a field would be', () => {
    expect(onX([1, 2], [[1, 2], [3]])).toBe(true);
    expect(onX({ $eq: [3] }, [[1, 2], [3]])).toBe(true);
  });
});

describe('operators', () => {
  test('$eq: type-strict and deep; any element of an array; the whole array too', () => {
    expect(onX({ $eq: 5 }, 5)).toBe(true);
    expect(onX({ $eq: 5 }, '5')).toBe(false);
    expect(onX({ $eq: 5 }, [4, 5])).toBe(true);
    expect(onX({ $eq: [4, 5] }, [4, 5])).toBe(true);
    expect(onX({ $eq: [5, 4] }, [4, 5])).toBe(false);
    expect(onX({ $eq: { a: 1, b: [2] } }, { b: [2], a: 1 })).toBe(true);
    expect(onX({ $eq: { a: 1 } }, { a: 1, b: 2 })).toBe(false);
    expect(onX({ $eq: { a: 1 } }, { a: '1' })).toBe(false);
    expect(onX({ $eq: null }, null)).toBe(true);
    expect(onX({ $eq: null }, undefined)).toBe(false);
  });

  test('$eq takes its operand literally: operators inside it are plain keys', () => {
    expect(onX({ $eq: { $gt: 1 } }, { $gt: 1 })).toBe(true);
    expect(onX({ $eq: { $gt: 1 } }, 2)).toBe(false);
  });

  test('$neq: present and not equal; on an array, no element equals', () => {
    expect(onX({ $neq: 'deleted' }, 'created')).toBe(true);
    expect(onX({ $neq: 'deleted' }, 'deleted')).toBe(false);
    expect(onX({ $neq: 5 }, '5')).toBe(true);
    expect(onX({ $neq: 'spam' }, ['a', 'b'])).toBe(true);
    expect(onX({ $neq: 'spam' }, ['a', 'spam'])).toBe(false);
    expect(onX({ $neq: 'x' }, undefined)).toBe(false);
  });

  test('$in and $nin', () => {
    expect(onX({ $in: ['opened', 'reopened'] }, 'reopened')).toBe(true);
    expect(onX({ $in: ['opened', 'reopened'] }, 'closed')).toBe(false);
    expect(onX({ $in: [1, 2] }, '1')).toBe(false);
    expect(onX({ $in: [1, 2] }, [5, 2])).toBe(true);
    expect(onX({ $in: [{ a: 1 }, [2]] }, { a: 1 })).toBe(true);
    expect(onX({ $in: [{ a: 1 }, [2]] }, [2])).toBe(true);
    expect(onX({ $in: [] }, 1)).toBe(false);
    expect(onX({ $in: [null] }, undefined)).toBe(false);
    expect(onX({ $nin: ['closed'] }, 'opened')).toBe(true);
    expect(onX({ $nin: ['closed'] }, 'closed')).toBe(false);
    expect(onX({ $nin: ['closed'] }, ['opened', 'closed'])).toBe(false);
    expect(onX({ $nin: [] }, 1)).toBe(true);
    expect(onX({ $nin: ['closed'] }, undefined)).toBe(false);
  });

  test('$exist: null is a value; absent is not', () => {
    expect(onX({ $exist: true }, 0)).toBe(true);
    expect(onX({ $exist: true }, null)).toBe(true);
    expect(onX({ $exist: true }, undefined)).toBe(false);
    expect(onX({ $exist: false }, undefined)).toBe(true);
    expect(onX({ $exist: false }, null)).toBe(false);
    expect(onX({ $exist: false }, [])).toBe(false);
  });

  test('$gt $gte $lt $lte on numbers', () => {
    expect(onX({ $gt: 10 }, 11)).toBe(true);
    expect(onX({ $gt: 10 }, 10)).toBe(false);
    expect(onX({ $gte: 10 }, 10)).toBe(true);
    expect(onX({ $gte: 10 }, 9.5)).toBe(false);
    expect(onX({ $lt: 10 }, 9)).toBe(true);
    expect(onX({ $lt: 10 }, 10)).toBe(false);
    expect(onX({ $lte: 10 }, 10)).toBe(true);
    expect(onX({ $lte: 10 }, 11)).toBe(false);
    expect(onX({ $gte: 0, $lt: 100 }, 50)).toBe(true);
    expect(onX({ $gte: 0, $lt: 100 }, 100)).toBe(false);
  });

  test('$gt $gte $lt $lte on strings, in code-unit order (ISO times compare as times)', () => {
    expect(onX({ $gte: '2024-01-01T00:00:00Z' }, '2024-06-01T12:00:00Z')).toBe(true);
    expect(onX({ $lt: '2024-01-01' }, '2023-12-31')).toBe(true);
    expect(onX({ $gt: 'b' }, 'a')).toBe(false);
    expect(onX({ $lte: 'b' }, 'b')).toBe(true);
    expect(onX({ $gt: 'Z' }, 'a')).toBe(true);
  });

  test('comparisons of mismatched types, or of an absent field, are false', () => {
    for (const op of ['$gt', '$gte', '$lt', '$lte']) {
      expect(onX({ [op]: 10 }, '10')).toBe(false);
      expect(onX({ [op]: '10' }, 10)).toBe(false);
      expect(onX({ [op]: 10 }, null)).toBe(false);
      expect(onX({ [op]: 10 }, true)).toBe(false);
      expect(onX({ [op]: 10 }, { a: 10 })).toBe(false);
      expect(onX({ [op]: 10 }, undefined)).toBe(false);
    }
  });

  test('comparisons on an array field: any element', () => {
    expect(onX({ $gt: 10 }, [1, 20])).toBe(true);
    expect(onX({ $gt: 10 }, [1, 2])).toBe(false);
    expect(onX({ $gt: 10 }, ['20'])).toBe(false);
  });

  test('$startsWith $endsWith $contains on strings', () => {
    expect(onX({ $startsWith: 'invoice.' }, 'invoice.paid')).toBe(true);
    expect(onX({ $startsWith: 'invoice.' }, 'charge.invoice.x')).toBe(false);
    expect(onX({ $endsWith: '.failed' }, 'charge.failed')).toBe(true);
    expect(onX({ $endsWith: '.failed' }, 'charge.failed.x')).toBe(false);
    expect(onX({ $contains: 'urgent' }, 'fix: urgent bug')).toBe(true);
    expect(onX({ $contains: 'urgent' }, 'Urgent')).toBe(false);
    expect(onX({ $startsWith: '' }, '')).toBe(true);
  });

  test('string operators on other types, or an absent field, are false', () => {
    for (const op of ['$startsWith', '$endsWith', '$contains']) {
      expect(onX({ [op]: '1' }, 1)).toBe(false);
      expect(onX({ [op]: 'a' }, { a: 'a' })).toBe(false);
      expect(onX({ [op]: 'a' }, null)).toBe(false);
      expect(onX({ [op]: 'a' }, undefined)).toBe(false);
    }
  });

  test('string operators on an array field: any string element', () => {
    expect(onX({ $contains: 'gift' }, ['x', 'gift'])).toBe(true);
    expect(onX({ $contains: 'gift' }, ['x', 'giftcard'])).toBe(true);
    expect(onX({ $contains: 'gift' }, ['x'])).toBe(false);
    expect(onX({ $startsWith: 'refs/tags/' }, ['refs/heads/main', 'refs/tags/v1'])).toBe(true);
    expect(onX({ $endsWith: 'z' }, [1, 'a'])).toBe(false);
  });

  test('operators and plain keys in one object must all hold', () => {
    expect(onX({ $exist: true, a: 1 }, { a: 1 })).toBe(true);
    expect(onX({ $exist: true, a: 1 }, { a: 2 })).toBe(false);
    expect(onX({ $neq: { a: 2 }, a: 1 }, { a: 1 })).toBe(true);
  });
});

describe('$or $and $not', () => {
  const push = { ref: 'refs/heads/main', repository: { private: true, stars: 3 }, size: 12 };

  test('$or: one holds; $and: all hold', () => {
    expect(onBody({ $or: [{ ref: 'refs/heads/dev' }, { size: { $gt: 10 } }] }, push)).toBe(true);
    expect(onBody({ $or: [{ ref: 'refs/heads/dev' }, { size: { $gt: 20 } }] }, push)).toBe(false);
    expect(onBody({ $and: [{ ref: 'refs/heads/main' }, { size: 12 }] }, push)).toBe(true);
    expect(onBody({ $and: [{ ref: 'refs/heads/main' }, { size: 13 }] }, push)).toBe(false);
  });

  test('$or of values on one field', () => {
    expect(onX({ $or: [1, 5] }, 5)).toBe(true);
    expect(onX({ $or: [1, 5] }, 4)).toBe(false);
    expect(onX({ $or: [{ $lt: 0 }, { $gt: 100 }] }, 101)).toBe(true);
    expect(onX({ $or: [{ $lt: 0 }, { $gt: 100 }] }, 50)).toBe(false);
  });

  test('$not negates, and so holds on an absent field', () => {
    expect(onX({ $not: 'spam' }, 'ham')).toBe(true);
    expect(onX({ $not: 'spam' }, 'spam')).toBe(false);
    expect(onX({ $not: 'spam' }, ['ham', 'spam'])).toBe(false);
    expect(onX({ $not: { $gt: 5 } }, 3)).toBe(true);
    expect(onX({ $not: { $gt: 5 } }, undefined)).toBe(true);
    expect(onX({ $not: { $exist: true } }, undefined)).toBe(true);
  });

  test('nested at several levels: top, part, field', () => {
    const filter = {
      $or: [
        { headers: { 'x-github-event': 'release' } },
        {
          headers: { 'x-github-event': 'push' },
          body: {
            $and: [
              { ref: { $or: [{ $startsWith: 'refs/heads/main' }, { $startsWith: 'refs/tags/' }] } },
              { $not: { repository: { $or: [{ private: false }, { stars: { $lt: 1 } }] } } },
            ],
          },
        },
      ],
      $not: { query: { dry: 'true' } },
    };
    const f = parseFilter(filter, 'filter');
    const msg = (event: string, body: unknown, query: Record<string, string> = {}) =>
      matches(f, input({ headers: { 'x-github-event': event }, body, query }));
    expect(msg('push', push)).toBe(true);
    expect(msg('push', push, { dry: 'true' })).toBe(false);
    expect(msg('push', { ...push, ref: 'refs/heads/dev' })).toBe(false);
    expect(msg('push', { ...push, ref: 'refs/tags/v2' })).toBe(true);
    expect(msg('push', { ...push, repository: { private: false, stars: 3 } })).toBe(false);
    expect(msg('push', { ...push, repository: { private: true, stars: 0 } })).toBe(false);
    expect(msg('release', 'not even an object')).toBe(true);
    expect(msg('issues', push)).toBe(false);
  });

  test('a top-level $not of a part', () => {
    const f = parseFilter({ $not: { headers: { 'x-github-event': 'ping' } } }, 'filter');
    expect(matches(f, input({ headers: { 'x-github-event': 'ping' } }))).toBe(false);
    expect(matches(f, input({ headers: { 'x-github-event': 'push' } }))).toBe(true);
    expect(matches(f, input())).toBe(true);
  });
});

describe('parts of the message', () => {
  test('several parts in one filter must all hold', () => {
    const f = parseFilter(
      { headers: { 'x-github-event': 'push' }, query: { team: 'ci' }, body: { size: 1 } },
      'filter',
    );
    const all = { headers: { 'x-github-event': 'push' }, query: { team: 'ci' }, body: { size: 1 } };
    expect(matches(f, input(all))).toBe(true);
    expect(matches(f, input({ ...all, query: { team: 'chat' } }))).toBe(false);
    expect(matches(f, input({ ...all, body: { size: 2 } }))).toBe(false);
    expect(matches(f, input({ ...all, headers: {} }))).toBe(false);
  });

  test('a repeated query name is an array: any value matches, an array needs all', () => {
    const q = input({ query: { tag: ['a', 'b'], one: 'x' } });
    expect(matches(parseFilter({ query: { tag: 'b' } }, 'filter'), q)).toBe(true);
    expect(matches(parseFilter({ query: { tag: ['b', 'a'] } }, 'filter'), q)).toBe(true);
    expect(matches(parseFilter({ query: { tag: ['b', 'c'] } }, 'filter'), q)).toBe(false);
    expect(matches(parseFilter({ query: { one: { $in: ['x', 'y'] } } }, 'filter'), q)).toBe(true);
  });

  test('metadata', () => {
    const f = parseFilter({ metadata: { webhook: { verified: true } } }, 'filter');
    expect(matches(f, input({ metadata: { webhook: { verified: true } } }))).toBe(true);
    expect(matches(f, input({ metadata: { webhook: { verified: null } } }))).toBe(false);
    expect(matches(f, input({ metadata: {} }))).toBe(false);
  });

  test('with no JSON body, only $exist: false holds on the body and its fields', () => {
    const none = (condition: unknown) => onBody(condition, undefined);
    expect(none({ $exist: false })).toBe(true);
    expect(none({ type: { $exist: false } })).toBe(true);
    expect(none({ a: { b: { $exist: false } } })).toBe(true);
    expect(none({ $exist: true })).toBe(false);
    expect(none({ type: { $exist: true } })).toBe(false);
    expect(none('text')).toBe(false);
    expect(none({ $contains: 'a' })).toBe(false);
    expect(none({ $neq: 'x' })).toBe(false);
    expect(none({ $nin: ['x'] })).toBe(false);
    expect(none({ type: 'x' })).toBe(false);
    expect(none([])).toBe(false);
  });
});

describe('prototype keys are plain keys', () => {
  test('a filter never reads inherited properties', () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(onBody(JSON.parse(`{"${key}":{"$exist":true}}`), {})).toBe(false);
      expect(onBody(JSON.parse(`{"${key}":{"$exist":false}}`), {})).toBe(true);
      expect(matches(parseFilter({ query: { [key]: { $exist: true } } }, 'filter'), input())).toBe(
        false,
      );
    }
    expect(onBody({ length: { $exist: true } }, 'abc')).toBe(false);
    expect(onBody({ length: 2 }, [1, 2])).toBe(false);
  });

  test('data keys named __proto__ and constructor are matched as data', () => {
    const body = JSON.parse('{"__proto__":{"admin":true},"constructor":"x"}');
    expect(onBody(JSON.parse('{"__proto__":{"admin":true}}'), body)).toBe(true);
    expect(onBody(JSON.parse('{"__proto__":{"admin":false}}'), body)).toBe(false);
    expect(onBody({ constructor: 'x' }, body)).toBe(true);
    expect(
      onBody({ $eq: JSON.parse('{"__proto__":{"admin":true},"constructor":"x"}') }, body),
    ).toBe(true);
    expect(
      onBody({ $eq: JSON.parse('{"__proto__":{"admin":false},"constructor":"x"}') }, body),
    ).toBe(false);
    // parsing a filter with such keys changes no prototype
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('properties', () => {
  const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
  const scalar = fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.constant(null),
  );
  const condition = fc.oneof(
    scalar,
    scalar.map(($eq) => ({ $eq })),
    fc.integer({ min: -3, max: 3 }).map(($gte) => ({ $gte })),
    fc.string({ maxLength: 2 }).map(($contains) => ({ $contains })),
    fc.array(scalar, { maxLength: 3 }).map(($in) => ({ $in })),
    fc.boolean().map(($exist) => ({ $exist })),
    fc.array(scalar, { maxLength: 2 }),
  );
  const value = fc.option(fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }), json), {
    nil: undefined,
  });

  test('$not f holds exactly when f does not', () => {
    fc.assert(
      fc.property(condition, value, (c, v) => onX({ $not: c }, v) === !onX(c, v)),
      { numRuns: 500 },
    );
  });

  test('$in [a] is $eq a; $nin [a] is $neq a', () => {
    fc.assert(
      fc.property(json, value, (a, v) => {
        expect(onX({ $in: [a] }, v)).toBe(onX({ $eq: a }, v));
        expect(onX({ $nin: [a] }, v)).toBe(onX({ $neq: a }, v));
      }),
      { numRuns: 500 },
    );
  });

  test('on a present field, $neq is the negation of $eq', () => {
    fc.assert(
      fc.property(json, json, (a, v) => onX({ $neq: a }, v) === !onX({ $eq: a }, v)),
      { numRuns: 500 },
    );
  });

  test('a value matches itself as $eq, and as a literal when it is a scalar', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(onX({ $eq: v }, v)).toBe(true);
        if (v === null || typeof v !== 'object') expect(onX(v, v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('$or [a, b] is a or b; $and [a, b] is a and b', () => {
    fc.assert(
      fc.property(condition, condition, value, (a, b, v) => {
        expect(onX({ $or: [a, b] }, v)).toBe(onX(a, v) || onX(b, v));
        expect(onX({ $and: [a, b] }, v)).toBe(onX(a, v) && onX(b, v));
      }),
      { numRuns: 500 },
    );
  });
});
