/**
 * No wake-up is lost (issue 31): a new_message signal that lands on a waiter
 * busy pulling, or the hand-off of a waiter that filled its batch, reaches a
 * waiter that will pull after it, whichever way the pulls and events
 * interleave. A fake channel stands for the store: a pull takes what is
 * available when it starts, and its answer comes back when the test releases
 * it, as a Redis reply can arrive after a later event.
 */
import { ChannelWaiters, type WakeReason } from '../../src/store/waiters';
import { fakeHub } from '../helpers/fakeSubscriber';

const tick = () => new Promise((r) => setTimeout(r, 5));

interface Attempt {
  reason: WakeReason;
  got: string[];
  /** lets the attempt's answer come back */
  answer: () => void;
}

/** every test's waits end with it, passed or failed */
const ends: AbortController[] = [];
afterEach(() => {
  for (const gone of ends.splice(0)) gone.abort();
});

function fakeChannel(batchSize: number) {
  const { fake, events } = fakeHub();
  const waiters = new ChannelWaiters(events);
  const gone = new AbortController();
  ends.push(gone);
  const available: string[] = [];
  const publish = (payload: string) => fake.emit('smessage', 'rq:{acme}:events', payload);

  /** A long poll whose attempts answer at once (held: false) or when the test says. */
  function consumer(name: string, opts: { held: boolean; waitMs?: number }) {
    const attempts: Attempt[] = [];
    const result = waiters.waitFor(
      'acme',
      'orders',
      { tokenId: name },
      opts.waitMs ?? 5_000,
      gone.signal,
      async (reason) => {
        // the pull reads the channel as it is now; its answer may come back later
        const got = available.splice(0, batchSize);
        let answer = () => undefined as void;
        const answered = new Promise<void>((resolve) => (answer = resolve));
        attempts.push({ reason, got, answer });
        if (!opts.held) answer();
        await answered;
        return { done: got.length > 0, value: got, more: got.length >= batchSize };
      },
    );
    return { attempts, result };
  }

  return {
    waiters,
    available,
    publish,
    consumer,
    end: () => gone.abort(),
  };
}

type Consumer = ReturnType<ReturnType<typeof fakeChannel>['consumer']>;

/** The consumer's first pull found nothing: it must pull again, for a message, and get got. */
async function pullsAgainFor(c: Consumer, got: string[]): Promise<void> {
  c.attempts[1]?.answer();
  await tick();
  expect(c.attempts.map((a) => [a.reason, a.got])).toEqual([
    ['first', []],
    ['message', got],
  ]);
  expect(await c.result).toEqual(got);
}

describe('a signal marked on a busy waiter whose pull then returns messages', () => {
  // A and B are both pulling (nobody sleeps) when m1 is sent: the event marks A, whose
  // pull (started before the send) returns m0. B's pull found nothing. Someone must pull
  // m1 now, not when B's wait ends.
  test.each([
    ['A answers first', ['A', 'B']],
    ['B answers first (and falls asleep)', ['B', 'A']],
  ])('is passed on, not dropped (%s)', async (_, order) => {
    const ch = fakeChannel(10);
    ch.available.push('m0');
    const waiting = {
      A: ch.consumer('A', { held: true }),
      B: ch.consumer('B', { held: true }),
    };
    await tick();
    expect(waiting.A.attempts.map((a) => a.got)).toEqual([['m0']]);
    expect(waiting.B.attempts.map((a) => a.got)).toEqual([[]]);

    ch.available.push('m1');
    ch.publish('n orders 1');
    for (const name of order as ('A' | 'B')[]) {
      waiting[name].attempts[0].answer();
      await tick();
    }
    expect(await waiting.A.result).toEqual(['m0']);
    await pullsAgainFor(waiting.B, ['m1']);
    ch.end();
  });
});

test('the hand-off of a waiter that filled its batch goes to another waiter, not to itself', async () => {
  // A sleeps; B is pulling (it found nothing). Three messages arrive with one event
  // (count 1, as a coalesced announcement may say): A is woken, takes a full batch of 2
  // and hands off. Nobody else sleeps, so the hand-off must mark B, never A itself.
  const ch = fakeChannel(2);
  const A = ch.consumer('A', { held: false });
  await tick();
  const B = ch.consumer('B', { held: true });
  await tick();
  expect(B.attempts.map((a) => a.got)).toEqual([[]]);

  ch.available.push('m1', 'm2', 'm3');
  ch.publish('n orders 1');
  await tick();
  expect(await A.result).toEqual(['m1', 'm2']);

  B.attempts[0].answer();
  await tick();
  await pullsAgainFor(B, ['m3']);
  ch.end();
});

test.each([
  [1, 3],
  [2, 4],
  [3, 3],
  [5, 3],
  [10, 1],
])('an event with count %i wakes min(count, sleepers) of %i sleepers', async (count, sleepers) => {
  const ch = fakeChannel(1);
  const waiting = Array.from({ length: sleepers }, (_, i) => ch.consumer(`t${i}`, { held: false }));
  await tick();
  ch.publish(`n orders ${count}`);
  await tick();
  const woken = waiting.filter((w) => w.attempts.some((a) => a.reason === 'message')).length;
  expect(woken).toBe(Math.min(count, sleepers));
  // oldest first
  expect(waiting.map((w) => w.attempts.length)).toEqual(
    waiting.map((_, i) => (i < Math.min(count, sleepers) ? 2 : 1)),
  );
  ch.end();
  await Promise.all(waiting.map((w) => w.result));
  expect(ch.waiters.count()).toBe(0);
});

test('a wait that ends with a signal pending passes it on (its last pull may have missed the message)', async () => {
  // A and B are pulling; m1 is sent and its event marks A; A's pull (started before the
  // send) finds nothing and A's wait has ended, so A answers empty: B must pull m1.
  const ch = fakeChannel(10);
  const A = ch.consumer('A', { held: true, waitMs: 30 });
  const B = ch.consumer('B', { held: true });
  await tick();
  ch.available.push('m1');
  ch.publish('n orders 1');
  await new Promise((r) => setTimeout(r, 40)); // past A's deadline
  A.attempts[0].answer();
  expect(await A.result).toEqual([]);
  B.attempts[0].answer();
  await tick();
  await pullsAgainFor(B, ['m1']);
  ch.end();
});
