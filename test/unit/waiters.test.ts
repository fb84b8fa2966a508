/**
 * Long-poll waiters over a fake subscriber connection: an event wakes only as
 * many waiters as messages became available, oldest first; a waiter that
 * filled its batch wakes the next; a revocation wakes only the waits of that
 * token, to check their caller again.
 */
import { ChannelWaiters, type WakeReason } from '../../src/store/waiters';
import { fakeHub } from '../helpers/fakeSubscriber';

const tick = () => new Promise((r) => setTimeout(r, 5));

/** Starts waiters 0..n-1 in order; attempts[i] lists the reasons waiter i attempted for. */
async function setup(n: number, more = false) {
  const { fake, events } = fakeHub();
  const waiters = new ChannelWaiters(events);
  const gone = new AbortController();
  const attempts: WakeReason[][] = [];
  /** what the next woken attempt finds */
  const found = { messages: 0 };
  const done: Promise<number>[] = [];
  for (let i = 0; i < n; i++) {
    attempts.push([]);
    done.push(
      waiters.waitFor('acme', 'orders', { tokenId: `t${i}` }, 5_000, gone.signal, async (r) => {
        attempts[i].push(r);
        const got = r === 'first' ? 0 : Math.min(found.messages, 1);
        found.messages -= got;
        return { done: got > 0, value: got, more: more && got > 0 && found.messages > 0 };
      }),
    );
    await tick();
  }
  const publish = (payload: string) => fake.emit('smessage', 'rq:{acme}:events', payload);
  return { waiters, attempts, found, done, publish, end: () => gone.abort() };
}

test('an event wakes one waiter, the oldest; the others do not attempt', async () => {
  const s = await setup(5);
  s.found.messages = 1;
  s.publish('n orders');
  await tick();
  expect(s.attempts.map((a) => a.length)).toEqual([2, 1, 1, 1, 1]);
  expect(await s.done[0]).toBe(1);
  s.publish('n other'); // another channel wakes nobody here
  await tick();
  expect(s.attempts.map((a) => a.length)).toEqual([2, 1, 1, 1, 1]);
  s.end();
  await Promise.all(s.done);
});

test('an event with a count wakes that many, oldest first', async () => {
  const s = await setup(5);
  s.found.messages = 3;
  s.publish('n orders 3');
  await tick();
  expect(s.attempts.map((a) => a.length)).toEqual([2, 2, 2, 1, 1]);
  s.end();
  expect(await Promise.all(s.done)).toEqual([1, 1, 1, 0, 0]);
});

test('a waiter that leaves messages behind wakes the next (coalesced events)', async () => {
  const s = await setup(4, true);
  s.found.messages = 3;
  s.publish('n orders'); // one event for three messages
  await tick();
  await tick();
  s.end();
  expect(await Promise.all(s.done)).toEqual([1, 1, 1, 0]);
  expect(s.attempts[3]).toEqual(['first']);
});

test('a revocation wakes only the waits of that token, to check their caller', async () => {
  const s = await setup(3);
  s.publish('r t1');
  await tick();
  expect(s.attempts).toEqual([['first'], ['first', 'recheck'], ['first']]);
  s.publish('a'); // account deleted: every wait checks
  await tick();
  expect(s.attempts.map((a) => a[a.length - 1])).toEqual(['recheck', 'recheck', 'recheck']);
  s.end();
  await Promise.all(s.done);
  expect(s.waiters.count()).toBe(0);
});
