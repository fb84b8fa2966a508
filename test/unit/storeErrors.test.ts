/** Script error replies to stable codes, as Redis 7 delivers them. */
import fs from 'node:fs';
import path from 'node:path';
import { toEnvelope } from '../../src/web/envelope';
import { RelayError, UNANSWERED_MESSAGE, UNAVAILABLE_MESSAGE } from '../../src/errors';
import {
  isUnavailable,
  rethrowStoreError,
  SCRIPT_ERROR_CODES,
  SCRIPT_ERRORS,
  scriptFailure,
} from '../../src/store/storeErrors';

function reply(message: string): Error {
  const e = new Error(message);
  e.name = 'ReplyError';
  return e;
}

test.each([
  // Redis 7 prefixes ERR to an error_reply with no space in it
  ['ERR ACCOUNT_EXISTS', { code: 'ACCOUNT_EXISTS', detail: '' }],
  ['ACCOUNT_NOT_FOUND', { code: 'ACCOUNT_NOT_FOUND', detail: '' }],
  ['CHANNEL_LIMIT 5', { code: 'CHANNEL_LIMIT', detail: '5' }],
  ['STALE_CONFIG dead-orders', { code: 'STALE_CONFIG', detail: 'dead-orders' }],
  ['STALE_CONFIG', { code: 'STALE_CONFIG', detail: '' }],
  [
    'ERR Error running script (call to f_1): @user_script:12: STORAGE_LIMIT 100',
    { code: 'STORAGE_LIMIT', detail: '100' },
  ],
])('%j -> %j', (message, failure) => {
  expect(scriptFailure(reply(message))).toEqual(failure);
});

test('not a script code', () => {
  expect(scriptFailure(new Error('ACCOUNT_EXISTS'))).toBeNull(); // not a ReplyError
  expect(scriptFailure(reply('ERR wrong number of arguments for command'))).toBeNull();
});

test('unavailable replies and connection errors', () => {
  expect(isUnavailable(reply('LOADING Redis is loading the dataset in memory'))).toBe(true);
  expect(isUnavailable(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(true);
  expect(isUnavailable(reply('ERR ACCOUNT_EXISTS'))).toBe(false);
});

test.each([
  // nothing reached Redis: the request had no effect
  ['connect ECONNREFUSED 127.0.0.1:6379', UNAVAILABLE_MESSAGE],
  ["Stream isn't writeable and enableOfflineQueue options is false", UNAVAILABLE_MESSAGE],
  ['LOADING Redis is loading the dataset in memory', UNAVAILABLE_MESSAGE, 'ReplyError'],
  // sent, never answered: Redis may have run it
  ['Command timed out', UNANSWERED_MESSAGE],
  ['Connection is closed.', UNANSWERED_MESSAGE],
  ['read ECONNRESET', UNANSWERED_MESSAGE],
])('an outage error %j is the 503 saying %j', (message, said, name = 'Error') => {
  const err = new Error(message);
  err.name = name;
  let thrown: unknown;
  try {
    rethrowStoreError(err);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(RelayError);
  expect(thrown).toMatchObject({ code: 'unavailable', message: said });
});

test('script failures are only our codes: Redis busy/loading replies are not', () => {
  for (const m of [
    'LOADING Redis is loading the dataset in memory',
    'BUSY Redis is busy running a script',
    'READONLY You cannot write against a read only replica.',
    'CLUSTERDOWN The cluster is down',
    'WRONGTYPE Operation against a key holding the wrong kind of value',
  ]) {
    expect(scriptFailure(reply(m))).toBeNull();
  }
});

test('every error code a Lua script can answer with is in SCRIPT_ERROR_CODES', () => {
  const dir = path.resolve(__dirname, '../../lua');
  const files = [
    ...fs.readdirSync(dir).filter((f) => f.endsWith('.lua')),
    ...fs.readdirSync(path.join(dir, 'lib')).map((f) => path.join('lib', f)),
  ];
  const codes = new Set<string>();
  for (const f of files) {
    for (const m of fs
      .readFileSync(path.join(dir, f), 'utf8')
      .matchAll(/(?:error_reply|refuse)\('([A-Z_]+)/g)) {
      codes.add(m[1]);
    }
  }
  expect(codes.size).toBeGreaterThan(0);
  expect([...codes].filter((c) => !(SCRIPT_ERROR_CODES as readonly string[]).includes(c))).toEqual(
    [],
  );
});

test('every script error code but the retried ones has one entry in SCRIPT_ERRORS', () => {
  // STALE_CONFIG and ROUTES_CHANGED: the store (the relay's routes) runs the call again
  expect(Object.keys(SCRIPT_ERRORS).sort()).toEqual(
    SCRIPT_ERROR_CODES.filter((c) => c !== 'STALE_CONFIG' && c !== 'ROUTES_CHANGED').sort(),
  );
});

test('a rate refusal names the limit that refused it and says when to retry', () => {
  const account = SCRIPT_ERRORS.RATE_LIMITED(['account', '1500', '10', '20'], {});
  expect(toEnvelope(account).status).toBe(429);
  expect(toEnvelope(account).headers['Retry-After']).toBe('2');
  expect(account.message).toBe(
    'rate limit exceeded: this account may make 10 requests per second in bursts of 20 (rate_limit_per_second 10, rate_limit_burst 20); retry after 2 s',
  );
  const token = SCRIPT_ERRORS.RATE_LIMITED(['token', '1', '1'], {});
  expect(toEnvelope(token).headers['Retry-After']).toBe('1');
  expect(token.message).toBe(
    'rate limit exceeded: this token may make 1 request per second (its rate_limit_per_second); retry after 1 s',
  );
});
