/**
 * The text pre-test of a filter (src/filters/texts.ts): it rules a stored message out only
 * when the full test is false, and it does rule out the common case (a body without the
 * needed value) without parsing.
 */
import fc from 'fast-check';
import { filterInputOf, matches, parseFilter } from '../../src/filters';

const stored = (body: unknown, metadata: unknown = {}, contentType = 'json') => ({
  contentType,
  bodyJson: JSON.stringify(contentType === 'text' ? JSON.stringify(body) : body),
  metadataJson: JSON.stringify(metadata),
});

test('a body without the needed text is ruled out; one with it, or with escapes, is tested', () => {
  const f = parseFilter({ body: { kind: 'rare' } }, 'filter');
  expect(f.mayMatch(stored({ kind: 'common' }))).toBe(false);
  expect(f.mayMatch(stored({ kind: 'rare' }))).toBe(true);
  expect(f.mayMatch(stored({ note: 'rare', kind: 'x' }))).toBe(true);
  // written with an escape: no text is ruled out
  expect(f.mayMatch({ ...stored({}), bodyJson: '{"kind":"r\\u0061re"}' })).toBe(true);
  // a text body is stored escaped: tested in full
  expect(f.mayMatch(stored({ kind: 'common' }, {}, 'text'))).toBe(true);
  const h = parseFilter({ headers: { 'x-github-event': 'push' } }, 'filter');
  const hook = (event: string) => ({ webhook: { headers: { 'x-github-event': event } } });
  expect(h.mayMatch(stored({}, hook('issues')))).toBe(false);
  expect(h.mayMatch(stored({}, hook('push')))).toBe(true);
  // $or and $not need nothing certain
  const or = parseFilter({ $or: [{ body: { a: 'x' } }, { body: { a: 'y' } }] }, 'filter');
  expect(or.mayMatch(stored({ a: 'z' }))).toBe(true);
});

const word = fc.constantFrom('a', 'b', 'ab', 'rare', 'x"y', 'é', '\\', '');
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    word,
    fc.integer({ min: -2, max: 2 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'kind'), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const operator = fc.oneof(
  word.map((w) => ({ $eq: w })),
  word.map((w) => ({ $neq: w })),
  word.map((w) => ({ $startsWith: w })),
  word.map((w) => ({ $endsWith: w })),
  word.map((w) => ({ $contains: w })),
  fc.array(word, { minLength: 1, maxLength: 2 }).map((ws) => ({ $in: ws })),
  fc.boolean().map((b) => ({ $exist: b })),
);
const condition: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  c: fc.oneof(
    { depthSize: 'small' },
    word,
    operator,
    fc.array(word, { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'kind'), tie('c'), { minKeys: 1, maxKeys: 2 }),
    tie('c').map((c) => ({ $not: c })),
    fc.array(tie('c'), { minLength: 1, maxLength: 2 }).map((cs) => ({ $or: cs })),
    fc.array(tie('c'), { minLength: 1, maxLength: 2 }).map((cs) => ({ $and: cs })),
  ),
})).c;

test('the pre-test never rules out a message the filter matches', () => {
  fc.assert(
    fc.property(
      condition,
      condition,
      value,
      value,
      fc.constantFrom('json', 'text'),
      (onBody, onMeta, body, metadata, contentType) => {
        let filter;
        try {
          filter = parseFilter({ body: onBody, metadata: onMeta }, 'filter');
        } catch {
          return; // not a valid filter
        }
        const message = stored(body, metadata, contentType);
        if (!filter.mayMatch(message)) {
          expect(matches(filter, filterInputOf(message))).toBe(false);
        }
      },
    ),
    { numRuns: 3000 },
  );
});
