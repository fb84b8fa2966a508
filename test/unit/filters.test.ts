/** The filter matcher's values and operators (src/filters, docs/api/filters.md): no Redis, no HTTP. */
import { matches, parseFilter } from '../../src/filters';
import { input, onBody, onX } from '../helpers/filters';

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
