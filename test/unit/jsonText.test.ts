/** Finding a message body's text in the request's JSON text. */
import {
  arrayElements,
  batchBodyTexts,
  compactBodyText,
  isCompactJson,
  objectMembers,
} from '../../src/http/jsonText';

test('a compact body is found whatever its kind, among spaced members', () => {
  const bodies = [
    '{"a":[1,{"b":"}]"}],"c":null}',
    '[1,2]',
    '"he said \\"hi\\" \\\\ é 😀 \\u0007"',
    '123456789012345',
    '-0.5',
    '1e+21',
    'true',
    'false',
    'null',
    '{}',
    '[]',
    '""',
  ];
  for (const body of bodies) {
    expect(JSON.stringify(JSON.parse(body))).toBe(body);
    const text = `{ "metadata" : {"body": 1} ,\n\t"body" :  ${body}  , "dedup_id":"x"}`;
    expect(compactBodyText(text)).toBe(body);
  }
});

test('a body in another form than stringify writes is not taken (the caller stringifies)', () => {
  for (const body of ['{"a": 1}', '[1, 2]', '1.0', '-0', '12345678901234567890', '"\\u00e9"']) {
    expect(compactBodyText(`{"body":${body}}`)).toBeUndefined();
  }
});

test('a key spelled with escapes is the key; the last of repeated keys wins, as in JSON.parse', () => {
  expect(compactBodyText('{"\\u0062ody":"escaped"}')).toBe('"escaped"');
  expect(compactBodyText('{"body":1,"body":{"x":2}}')).toBe('{"x":2}');
  expect(compactBodyText('{"body":1,"body":{"x": 2}}')).toBeUndefined();
  expect(compactBodyText('{"body":{"x": 2},"body":1}')).toBe('1');
});

test('no body member, or not an object: undefined', () => {
  expect(compactBodyText('{}')).toBeUndefined();
  expect(compactBodyText('{"bodies":1,"bod":2}')).toBeUndefined();
  expect(compactBodyText('[{"body":1}]')).toBeUndefined();
  expect(objectMembers('"body"', 0)).toBeNull();
  expect(arrayElements('{}', 0)).toBeNull();
});

test('every body of a batch, in order; a message without a compact one is undefined', () => {
  const text =
    '{"delay_seconds":1,"messages":[ {"body":"a"}, {"metadata":{},"body":[1,"]"]},{},{"body":{"body":2}}, {"body":[1, 2]} ]}';
  expect(batchBodyTexts(text)).toEqual(['"a"', '[1,"]"]', undefined, '{"body":2}', undefined]);
  expect(batchBodyTexts('{"messages":[]}')).toEqual([]);
  expect(batchBodyTexts('{}')).toEqual([]);
});

test('unicode, as the decoded request text holds it, stays as sent', () => {
  const text = JSON.stringify({ body: { name: 'Zoë 😀 ☃', note: '\u2028' } });
  expect(compactBodyText(text)).toBe(JSON.stringify({ name: 'Zoë 😀 ☃', note: '\u2028' }));
});

describe('isCompactJson: the text is exactly what JSON.stringify makes of its value', () => {
  const values: unknown[] = [
    0,
    -1.5,
    1e21,
    123456789.125,
    'plain',
    'quote " backslash \\ newline \n tab \t bell \u0007 line \u2028 astral 😀',
    '',
    [],
    {},
    [1, [2, [3, {}]], null, true, false],
    { a: 1, b: { c: [1, 'x'], d: null }, 'key "quoted"': 'v', __proto__x: 1 },
    { nested: [{ a: [] }, { b: {} }] },
  ];
  test.each(values.map((v) => [JSON.stringify(v)]))('%s is compact', (text) => {
    expect(isCompactJson(text)).toBe(true);
  });

  test.each([
    ['{"a": 1}', 'a space'],
    ['[1,2 ]', 'a space before ]'],
    ['1.0', 'a number JavaScript prints otherwise'],
    ['1.5E3', 'an exponent'],
    ['-0', 'minus zero'],
    ['12345678901234567890', 'beyond a double'],
    ['"caf\\u00e9"', 'a \\u escape'],
    ['"a\\/b"', 'an escaped slash'],
    ['{"a":1,"a":2}', 'a repeated key'],
    ['{"b":1,"2":2}', 'an index-like key (V8 moves it first)'],
    ['{"0":1}', 'an index-like key'],
  ])('%s is not (%s)', (text) => {
    expect(isCompactJson(text)).toBe(false);
  });

  test('whenever it says compact, stringify agrees (random texts)', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
    const space = () => pick(['', '', '', ' ', '\n']);
    const gen = (depth: number): string => {
      const kind = depth > 3 ? pick(['n', 's', 'l']) : pick(['n', 's', 'l', 'a', 'o']);
      if (kind === 'n') return pick(['0', '-1', '1.5', '1.50', '1e3', '-0', '7', '100', '0.1']);
      if (kind === 's')
        return pick(['"x"', '"\\n"', '"\\u0041"', '"\\u0007"', '"\\u001F"', '"é"', '""', '"\\/"']);
      if (kind === 'l') return pick(['true', 'false', 'null']);
      const n = Math.floor(random() * 3);
      const items = Array.from({ length: n }, () =>
        kind === 'a'
          ? `${space()}${gen(depth + 1)}${space()}`
          : `${space()}${pick(['"a"', '"b"', '"1"', '"k"'])}${space()}:${space()}${gen(depth + 1)}`,
      );
      return kind === 'a' ? `[${items.join(',')}]` : `{${items.join(',')}}`;
    };
    let compact = 0;
    for (let i = 0; i < 5000; i++) {
      const text = gen(0);
      const canonical = JSON.stringify(JSON.parse(text));
      // never compact when stringify writes otherwise; compact whenever it agrees, except
      // for the index-like keys it declines (key "1" here)
      const expected = text === canonical && !text.includes('"1":');
      if (isCompactJson(text)) expect(text).toBe(canonical);
      expect([text, isCompactJson(text)]).toEqual([text, expected]);
      expect(compactBodyText(`{"x":[1],"body":${text}}`)).toBe(expected ? text : undefined);
      if (expected) compact++;
    }
    expect(compact).toBeGreaterThan(500);
  });
});
