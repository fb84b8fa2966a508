/** Filters: $or $and $not, the parts of a message, prototype keys, and properties of the operators. */
import fc from 'fast-check';
import { matches, parseFilter } from '../../src/filters';
import { input, onBody, onX } from '../helpers/filters';

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
