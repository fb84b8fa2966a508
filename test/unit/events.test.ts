/**
 * EventHub over a fake subscriber connection: one Redis subscription per
 * account, dropped with the last listener; a failed subscription is reported
 * (never a silent `subscribed` that would miss events) and retried next time;
 * a reconnection tells every listener that events may have been missed.
 */
import { UNANSWERED_MESSAGE } from '../../src/errors';
import { parseEvent, RESUBSCRIBE_SPREAD_MS, type AccountEvent } from '../../src/store/events';
import { fakeHub as hub } from '../helpers/fakeSubscriber';

test('parseEvent reads the payloads the scripts publish', () => {
  expect(parseEvent('n orders')).toEqual({ kind: 'new_message', channel: 'orders' });
  expect(parseEvent('n orders 3')).toEqual({ kind: 'new_message', channel: 'orders', count: 3 });
  expect(parseEvent('n orders x')).toEqual({ kind: 'new_message', channel: 'orders' });
  // a coalesced announcement whose messages were all taken meanwhile wakes no long poll
  expect(parseEvent('n orders 0')).toEqual({ kind: 'new_message', channel: 'orders', count: 0 });
  expect(parseEvent('n orders ')).toEqual({ kind: 'new_message', channel: 'orders' });
  expect(parseEvent('n orders -1')).toEqual({ kind: 'new_message', channel: 'orders' });
  expect(parseEvent('r 0123456789abcdef')).toEqual({
    kind: 'token_revoked',
    tokenId: '0123456789abcdef',
  });
  expect(parseEvent('a')).toEqual({ kind: 'account_deleted' });
  expect(parseEvent('x')).toBeNull();
});

test('one subscription per account, shared by its listeners and dropped with the last', async () => {
  const { fake, events } = hub();
  const got: AccountEvent[] = [];
  const [off1, off2] = await Promise.all([
    events.subscribe('acme', (e) => got.push(e)),
    events.subscribe('acme', (e) => got.push(e)),
  ]);
  expect(fake.calls).toEqual(['ssubscribe rq:{acme}:events']);
  fake.emit('smessage', 'rq:{acme}:events', 'n orders');
  fake.emit('smessage', 'rq:{beta}:events', 'n orders');
  expect(got).toEqual([
    { kind: 'new_message', channel: 'orders' },
    { kind: 'new_message', channel: 'orders' },
  ]);
  off1();
  off1();
  expect(events.subscribedAccounts()).toBe(1);
  off2();
  expect(events.subscribedAccounts()).toBe(0);
  expect(fake.calls).toEqual(['ssubscribe rq:{acme}:events', 'sunsubscribe rq:{acme}:events']);
});

test('a subscription that fails rejects every waiting listener, and the next one tries again', async () => {
  const { fake, events } = hub();
  fake.failNext = new Error('MOVED 1234 10.0.0.1:6379');
  const results = await Promise.allSettled([
    events.subscribe('acme', () => undefined),
    events.subscribe('acme', () => undefined),
  ]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(events.subscribedAccounts()).toBe(0);

  const off = await events.subscribe('acme', () => undefined);
  expect(events.subscribedAccounts()).toBe(1);
  expect(fake.calls).toEqual(['ssubscribe rq:{acme}:events', 'ssubscribe rq:{acme}:events']);
  off();
});

test("a closed subscriber connection is the store's 503, not an unexpected error", async () => {
  const { fake, events } = hub();
  fake.failNext = new Error('Connection is closed.');
  await expect(events.subscribe('acme', () => undefined)).rejects.toMatchObject({
    code: 'unavailable',
    // ioredis says so of a command it never sent and of one it sent before the close alike
    message: UNANSWERED_MESSAGE,
  });
});

test('after a reconnection the accounts are resubscribed in one command, and every listener is told so within the spread', async () => {
  const { fake, events } = hub();
  const got: [string, AccountEvent][] = [];
  const offA = await events.subscribe('acme', (e) => got.push(['acme', e]));
  const offB = await events.subscribe('beta', (e) => got.push(['beta', e]));
  fake.calls = [];
  const readyAt = Date.now();
  fake.emit('ready');
  expect(got).toEqual([]);
  await new Promise((r) => setImmediate(r));
  expect(fake.calls).toEqual(['ssubscribe rq:{acme}:events rq:{beta}:events']);
  await new Promise((r) => setTimeout(r, RESUBSCRIBE_SPREAD_MS + 50));
  // `by` bounds the spread of whoever passes the catch-up on (the WebSocket server).
  const by = expect.any(Number);
  expect(got.sort()).toEqual([
    ['acme', { kind: 'resubscribed', by }],
    ['beta', { kind: 'resubscribed', by }],
  ]);
  for (const [, e] of got) {
    const end = (e as { by: number }).by;
    expect(end).toBeGreaterThanOrEqual(readyAt + RESUBSCRIBE_SPREAD_MS);
    expect(end).toBeLessThanOrEqual(Date.now());
  }
  offA();
  offB();
});
