/**
 * Message groups and notifications (docs/api/groups.md): when acking a group's head makes its
 * next message available, new_message goes out (WebSocket subscribers and long polls, on
 * every pod), not only on sends.
 */
import { accountWithToken } from '../../helpers/app';
import { relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, newMessage, subscribe } from '../../helpers/ws';

const rq = useRelay({ pods: 2, listen: true });
afterEach(() => closeClients());

const one = (channel: string) => `/v1/relay/channels/${channel}/messages/subscribe`;

test("acking a group's head announces its next message to a subscriber on another pod", async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const ca = relay(rq.a, auth);
  const sub = await subscribe(rq.b, one('orders'), auth);
  await ca.batchOk('orders', {
    messages: [
      { body: 1, group_id: 'g' },
      { body: 2, group_id: 'g' },
    ],
  });
  await sub.waitFor(newMessage('orders'));
  const [head] = (await ca.pullOk('orders', { batch_size: 1 })).messages;
  expect(head.body).toBe(1);
  const before = sub.events.length;
  await ca.ackOk('orders', [head.lease_id]);
  const event = await sub.waitFor(newMessage('orders'), 3000, before);
  expect(event.type).toBe('new_message');
  expect((await ca.pullOk('orders')).messages.map((m) => m.body)).toEqual([2]);
});

test("a long poll on another pod wakes when the group's next message becomes available", async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const ca = relay(rq.a, auth);
  const cb = relay(rq.b, auth);
  await ca.batchOk('orders', {
    messages: [
      { body: 1, group_id: 'g' },
      { body: 2, group_id: 'g' },
    ],
  });
  const [head] = (await ca.pullOk('orders', { batch_size: 1 })).messages;
  const started = Date.now();
  const waiting = cb.pullOk('orders', { wait_ms: 10000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await ca.ackOk('orders', [head.lease_id]);
  const woken = await waiting;
  expect(woken.messages.map((m) => m.body)).toEqual([2]);
  expect(Date.now() - started).toBeLessThan(5000);
});
