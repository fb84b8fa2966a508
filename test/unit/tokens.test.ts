/** Token format, parsing, hashing and the Authorization header. */
import { bearerToken } from '../../src/auth/credential';
import {
  formatToken,
  hashSecret,
  newSecret,
  newTokenId,
  parseToken,
  safeEqual,
} from '../../src/auth/tokens';
import { RelayError } from '../../src/errors';
import { toEnvelope } from '../../src/web/envelope';

test('a formatted token parses back to its parts', () => {
  const id = newTokenId();
  const secret = newSecret();
  expect(id).toMatch(/^[0-9a-f]{16}$/);
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const token = formatToken('acme.prod_1', id, secret);
  expect(parseToken(token)).toEqual({ tokenId: id, secret, accountId: 'acme.prod_1' });
});

test('secrets are random and long', () => {
  const secrets = new Set(Array.from({ length: 100 }, newSecret));
  expect(secrets.size).toBe(100);
});

test.each([
  '',
  'rq_',
  'xx_0123456789abcdef' + 'a'.repeat(43) + '_acme',
  'rq_0123456789ABCDEF' + 'a'.repeat(43) + '_acme',
  'rq_0123456789abcdef' + 'a'.repeat(42) + '_acme',
  'rq_0123456789abcdef' + 'a'.repeat(43) + 'acme',
  'rq_0123456789abcdef' + 'a'.repeat(43) + '_.acme',
  'rq_0123456789abcdef' + 'a'.repeat(43) + '_' + 'a'.repeat(600),
])('%j does not parse', (token) => {
  expect(parseToken(token)).toBeNull();
});

test('hashSecret is sha256 hex; safeEqual compares any lengths', () => {
  expect(hashSecret('abc')).toBe(
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
  expect(safeEqual('abc', 'abc')).toBe(true);
  expect(safeEqual('abc', 'abd')).toBe(false);
  expect(safeEqual('abc', 'abcd')).toBe(false);
  expect(safeEqual('', '')).toBe(true);
});

function status(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof RelayError) return [toEnvelope(err).status, err.message];
    throw err;
  }
  throw new Error('expected an error');
}

test('bearerToken: the scheme is case-insensitive, the token kept as is', () => {
  expect(bearerToken('Bearer AbC')).toBe('AbC');
  expect(bearerToken('bearer AbC')).toBe('AbC');
  expect(bearerToken('BEARER\tAbC ')).toBe('AbC');
});

test.each([
  [undefined, 'missing Authorization header; send Authorization: Bearer <token>'],
  ['', 'missing Authorization header; send Authorization: Bearer <token>'],
  ['Basic x', 'malformed Authorization header; expected Bearer <token>'],
  ['Bearer', 'malformed Authorization header; expected Bearer <token>'],
  ['Bearer a b', 'malformed Authorization header; expected Bearer <token>'],
  ['Bearerabc', 'malformed Authorization header; expected Bearer <token>'],
])('bearerToken(%j) is a 401', (header, message) => {
  expect(status(() => bearerToken(header))).toEqual([401, message]);
});
