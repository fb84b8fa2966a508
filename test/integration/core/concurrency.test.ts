/** Concurrent consumers and two app instances over one Redis. */
import { accountWithToken, ADMIN_TOKEN } from '../../helpers/app';
import { expectError, relay } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ pods: 2 });

test('20 concurrent pullers over 1,000 messages receive each exactly once while leases are valid', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const client = relay(rq.a, auth);
  const sent: string[] = [];
  for (let b = 0; b < 10; b++) {
    const res = await client.batch('orders', {
      messages: Array.from({ length: 100 }, (_, i) => ({ body: b * 100 + i })),
    });
    expect(res.status).toBe(200);
    sent.push(...res.body.result.ids);
  }
  const received: string[] = [];
  const bodies: number[] = [];
  const leases: string[] = [];
  const pullers = [client, relay(rq.b, auth)];
  const puller = async (_: unknown, n: number) => {
    // the pullers are spread over the two instances
    for (;;) {
      const r = await pullers[n % 2].pullOk('orders', {
        batch_size: 7,
        visibility_timeout_ms: 600_000,
      });
      if (r.messages.length === 0) return;
      for (const m of r.messages) {
        received.push(m.id);
        bodies.push(m.body as number);
        leases.push(m.lease_id);
        expect(m.attempts).toBe(1);
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, puller));
  expect(received).toHaveLength(1000);
  expect(new Set(received).size).toBe(1000);
  expect(new Set(received)).toEqual(new Set(sent));
  expect([...bodies].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));

  // acks from concurrent consumers too: every message deleted once
  const chunks = Array.from({ length: 10 }, (_, i) => leases.slice(i * 100, i * 100 + 100));
  const counts = await Promise.all(chunks.map((c) => client.ackOk('orders', c)));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(1000);
  expect(await client.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
});

test('two app instances over one Redis behave as one service', async () => {
  const { auth, tokenId } = await accountWithToken(rq.a, 'acme');
  const one = relay(rq.a, auth);
  const two = relay(rq.b, auth);
  const id = await one.sendOk('orders', { body: 'via one', metadata: { k: 1 } });
  const pulled = await two.pullOk('orders', { visibility_timeout_ms: 60_000 });
  expect(pulled.messages.map((m) => [m.id, m.body, m.metadata])).toEqual([
    [id, 'via one', { k: 1 }],
  ]);
  // hidden on both
  expect(await one.pullOk('orders')).toEqual({ message_backlog_count: 1, messages: [] });
  expect(await one.ackOk('orders', [pulled.messages[0].lease_id])).toBe(1);
  expect(await two.pullOk('orders')).toEqual({ message_backlog_count: 0, messages: [] });
  // a token revoked through one instance is refused by the other at once
  const revoked = await rq.b.http
    .delete(`/v1/admin/accounts/acme/tokens/${tokenId}`)
    .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  expect(revoked.status).toBe(200);
  expectError(await one.send('orders', { body: 1 }), 401, 'invalid or revoked token');
});

test('concurrent sends on two instances keep every message', async () => {
  const { auth } = await accountWithToken(rq.a, 'acme');
  const clients = [relay(rq.a, auth), relay(rq.b, auth)];
  const ids = await Promise.all(
    Array.from({ length: 100 }, (_, i) => clients[i % 2].sendOk('orders', { body: i })),
  );
  expect(new Set(ids).size).toBe(100);
  const pulled = await clients[1].pullOk('orders', { batch_size: 100 });
  expect(new Set(pulled.messages.map((m) => m.id))).toEqual(new Set(ids));
});
