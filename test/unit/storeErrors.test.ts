import { ReplyError } from 'ioredis';
import { isUnavailable, scriptFailure } from '../../src/store/storeErrors';

const reply = (message: string) => new ReplyError(message);

test('a one-word script error code arrives as "ERR CODE" and is still recognised', () => {
  expect(scriptFailure(reply('ERR CHANNEL_NOT_FOUND'))).toEqual({
    code: 'CHANNEL_NOT_FOUND',
    detail: '',
  });
  expect(scriptFailure(reply('ERR ACCOUNT_EXISTS'))).toEqual({
    code: 'ACCOUNT_EXISTS',
    detail: '',
  });
});

test('codes with a detail are recognised', () => {
  expect(scriptFailure(reply('CHANNEL_LIMIT 5'))).toEqual({ code: 'CHANNEL_LIMIT', detail: '5' });
  expect(scriptFailure(reply('STALE_CONFIG dlq'))).toEqual({ code: 'STALE_CONFIG', detail: 'dlq' });
});

test('errors that are not script replies are not script failures', () => {
  expect(scriptFailure(new Error('CHANNEL_NOT_FOUND'))).toBeNull();
  expect(scriptFailure('CHANNEL_NOT_FOUND')).toBeNull();
});

test('unreachable or not-serving Redis is recognised as unavailable', () => {
  expect(isUnavailable(new Error('Connection is closed.'))).toBe(true);
  expect(isUnavailable(new Error('Command timed out'))).toBe(true);
  expect(
    isUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false")),
  ).toBe(true);
  expect(isUnavailable(reply('LOADING Redis is loading the dataset in memory'))).toBe(true);
  expect(isUnavailable(reply('ERR CHANNEL_NOT_FOUND'))).toBe(false);
});
