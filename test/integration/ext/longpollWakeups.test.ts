/**
 * End to end, no lost wake-up (issue 31): long polls wait on a channel of one pod while
 * another client sends a stream to the other pod, in bursts and pauses (so that the
 * waiters are now all asleep, now all pulling, and announcements are now at once, now
 * coalesced). Every message is taken, and none waits a second after its send was
 * answered: a long poll is woken for every message that becomes available.
 */
import { accountWithToken, sleep } from '../../helpers/app';
import { path } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ pods: 2, listen: true });

const CONSUMERS = 4;
const MESSAGES = 120;

test('under a stream of sends from another pod, no message waits 1 s for a long poll', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const headers = { Authorization: auth, 'Content-Type': 'application/json' };
  const sentAt = new Map<string, number>();
  const takenAt = new Map<string, number>();
  const stop = new AbortController();

  // batch sizes 1 and 2: a full batch hands off to the next waiter
  const consume = async (_: unknown, n: number) => {
    while (!stop.signal.aborted) {
      let res: Response;
      try {
        res = await fetch(`${rq.a.baseUrl}${path('orders', '/pull')}`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ wait_ms: 20000, batch_size: 1 + (n % 2) }),
          signal: stop.signal,
        });
      } catch (err) {
        if (stop.signal.aborted) return;
        throw err;
      }
      const at = Date.now();
      const { result } = (await res.json()) as { result: { messages: { id: string }[] } };
      for (const m of result.messages) {
        expect(takenAt.has(m.id)).toBe(false);
        takenAt.set(m.id, at);
      }
    }
  };
  const consumers = Array.from({ length: CONSUMERS }, consume);
  await sleep(300);

  const send = async (i: number) => {
    const res = await fetch(`${rq.b.baseUrl}${path('orders')}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ body: i }),
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { id: string } };
    sentAt.set(result.id, Date.now());
  };
  let sent = 0;
  while (sent < MESSAGES) {
    // a burst of 1 to 6 concurrent sends, then a short gap; now and then a pause in which
    // every long poll falls asleep
    const burst = Math.min(1 + Math.floor(Math.random() * 6), MESSAGES - sent);
    await Promise.all(Array.from({ length: burst }, (_, k) => send(sent + k)));
    sent += burst;
    await sleep(sent % 20 < burst ? 400 : Math.random() * 60);
  }

  const deadline = Date.now() + 15_000;
  while (takenAt.size < MESSAGES && Date.now() < deadline) await sleep(50);
  stop.abort();
  await Promise.all(consumers);

  expect(takenAt.size).toBe(MESSAGES);
  const waits = [...sentAt].map(([id, at]) => (takenAt.get(id) ?? Infinity) - at);
  // lenient with a loaded machine: a lost wake-up waits for the next event or a deadline
  expect(Math.max(...waits)).toBeLessThan(1000);
});
