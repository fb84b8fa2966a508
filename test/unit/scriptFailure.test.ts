import { scriptFailure } from '../../src/store/storeErrors';

function reply(message: string): Error {
  const err = new Error(message);
  err.name = 'ReplyError';
  return err;
}

test.each([
  ['CHANNEL_NOT_FOUND', 'CHANNEL_NOT_FOUND', ''],
  ['ERR CHANNEL_NOT_FOUND', 'CHANNEL_NOT_FOUND', ''],
  ['ERR ACCOUNT_EXISTS', 'ACCOUNT_EXISTS', ''],
  ['STORAGE_LIMIT 1000', 'STORAGE_LIMIT', '1000'],
  ['STALE_CONFIG orders-dlq', 'STALE_CONFIG', 'orders-dlq'],
  ['ERR STALE_CONFIG', 'STALE_CONFIG', ''],
])('%s is the script code %s', (message, code, detail) => {
  expect(scriptFailure(reply(message))).toEqual({ code, detail });
});

test('errors that are not replies are not script failures', () => {
  expect(scriptFailure(new Error('CHANNEL_NOT_FOUND'))).toBeNull();
});
