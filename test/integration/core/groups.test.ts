/**
 * Message groups (docs/api/groups.md): strict order per group, fair turns between groups,
 * the group_order setting, FIFO channels, and the channel view's counts. Also in the
 * cluster project (test/integration/core): a channel's group keys share its account's slot.
 */
import { sleep } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'acme' });

interface Pulled {
  body: unknown;
  lease_id: string;
  group_id?: string;
  attempts: number;
}

const pull = async (channel: string, body: object = {}): Promise<Pulled[]> =>
  (await rq.client.pullOk(channel, body)).messages as Pulled[];
const bodies = (messages: Pulled[]) => messages.map((m) => m.body);
const configure = async (channel: string, settings: object) =>
  expect((await rq.client.configure(channel, settings)).status).toBe(200);
const view = async (channel: string) => (await rq.client.channel(channel)).body.result;

test('group_id is shown on pulled messages; a message without one has none', async () => {
  await rq.client.sendOk('orders', { body: 'a', group_id: 'cus_1' });
  await rq.client.sendOk('orders', { body: 'b' });
  const pulled = await pull('orders');
  expect(pulled.map((m) => [m.body, m.group_id])).toEqual([
    ['a', 'cus_1'],
    ['b', undefined],
  ]);
  expect('group_id' in pulled[1]).toBe(false);
});

test('a bad group_id is a 400 naming it, and stores nothing', async () => {
  for (const group of ['', 'x'.repeat(129), 'has space', 'brace{', 7]) {
    const res = await rq.client.send('orders', { body: 1, group_id: group });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain('group_id');
  }
  const batch = await rq.client.batch('orders', {
    messages: [
      { body: 1, group_id: 'ok' },
      { body: 2, group_id: 'not ok' },
    ],
  });
  expect(batch.status).toBe(400);
  expect(batch.body.errors[0].message).toContain('messages[1].group_id');
  expect((await rq.client.channel('orders')).status).toBe(404);
  // every allowed character
  await rq.client.sendOk('orders', { body: 1, group_id: 'A-z_0.9:/=+@-' + 'x'.repeat(115) });
});

test('strict order: a group is locked while its head is in flight; a new send does not unlock it', async () => {
  await rq.client.sendOk('orders', { body: 'a1', group_id: 'a' });
  const [head] = await pull('orders', { batch_size: 1 });
  expect(head.body).toBe('a1');
  await rq.client.sendOk('orders', { body: 'a2', group_id: 'a' });
  await rq.client.sendOk('orders', { body: 'b1', group_id: 'b' });
  expect(bodies(await pull('orders'))).toEqual(['b1']);
  expect(await pull('orders')).toEqual([]);
  const v = await view('orders');
  expect(v.groups).toBe(2);
  expect(v.blocked_groups).toBe(2);
  await rq.client.ackOk('orders', [head.lease_id]);
  expect(bodies(await pull('orders'))).toEqual(['a2']);
});

test("one pull takes a group's consecutive messages in send order, all in flight together", async () => {
  await rq.client.batchOk('orders', {
    messages: [1, 2, 3, 4, 5].map((n) => ({ body: n, group_id: 'g' })),
  });
  const first = await pull('orders', { batch_size: 3 });
  expect(bodies(first)).toEqual([1, 2, 3]);
  expect(await pull('orders')).toEqual([]);
  // acking the head alone leaves the group locked by the two others
  await rq.client.ackOk('orders', [first[0].lease_id]);
  expect(await pull('orders')).toEqual([]);
  await rq.client.ackOk('orders', [first[1].lease_id, first[2].lease_id]);
  expect(bodies(await pull('orders'))).toEqual([4, 5]);
});

test('extending the head keeps the rest hidden past its first lease', async () => {
  await rq.client.batchOk('orders', {
    messages: [
      { body: 1, group_id: 'g' },
      { body: 2, group_id: 'g' },
    ],
  });
  const [head] = await pull('orders', { batch_size: 1, visibility_timeout_ms: 1000 });
  expect(
    await rq.client.extendOk('orders', { lease_ids: [head.lease_id], visibility_timeout_ms: 3000 }),
  ).toBe(1);
  await sleep(1300);
  expect(await pull('orders')).toEqual([]);
  expect((await view('orders')).blocked_groups).toBe(1);
});

test('a retried head comes back first, before every later message of its group', async () => {
  await rq.client.batchOk('orders', {
    messages: [1, 2, 3].map((n) => ({ body: n, group_id: 'g' })),
  });
  const [head] = await pull('orders', { batch_size: 1 });
  await rq.client.retryOk('orders', [{ lease_id: head.lease_id, delay_seconds: 1 }]);
  // waiting for its retry: the group stays blocked, its later messages hidden
  expect(await pull('orders')).toEqual([]);
  expect((await view('orders')).blocked_groups).toBe(1);
  await sleep(1100);
  const again = await pull('orders');
  expect(again.map((m) => [m.body, m.attempts])).toEqual([
    [1, 2],
    [2, 1],
    [3, 1],
  ]);
});

test('an expired head comes back first', async () => {
  await rq.client.batchOk('orders', {
    messages: [1, 2].map((n) => ({ body: n, group_id: 'g' })),
  });
  await pull('orders', { batch_size: 1, visibility_timeout_ms: 1000 });
  await rq.client.sendOk('orders', { body: 3, group_id: 'g' });
  await sleep(1200);
  expect((await pull('orders')).map((m) => [m.body, m.attempts])).toEqual([
    [1, 2],
    [2, 1],
    [3, 1],
  ]);
});

test('dead-lettering the head releases the next; the dead letter keeps its group_id', async () => {
  await configure('orders', { max_attempts: 1, dead_letter_channel: 'dlq' });
  await rq.client.batchOk('orders', {
    messages: [1, 2].map((n) => ({ body: n, group_id: 'g' })),
  });
  const [head] = await pull('orders', { batch_size: 1 });
  await rq.client.retryOk('orders', [{ lease_id: head.lease_id }]);
  expect(bodies(await pull('orders'))).toEqual([2]);
  const dead = await pull('dlq');
  expect(dead.map((m) => [m.body, m.group_id])).toEqual([[1, 'g']]);
});

test('redrive moves every grouped dead letter back, in group order', async () => {
  await configure('orders', { max_attempts: 1, dead_letter_channel: 'dlq' });
  await rq.client.batchOk('orders', {
    messages: [1, 2, 3].map((n) => ({ body: n, group_id: 'g' })),
  });
  for (let i = 0; i < 3; i++) {
    const [m] = await pull('orders', { batch_size: 1 });
    await rq.client.retryOk('orders', [{ lease_id: m.lease_id }]);
  }
  expect((await view('dlq')).groups).toBe(1);
  expect(await rq.client.redriveOk('dlq', { to: 'orders' })).toBe(3);
  expect((await view('dlq')).groups).toBe(0);
  const back = await pull('orders', { batch_size: 10 });
  expect(back.map((m) => [m.body, m.group_id])).toEqual([
    [1, 'g'],
    [2, 'g'],
    [3, 'g'],
  ]);
});

test("a delayed message blocks its group's later messages until it is delivered", async () => {
  await rq.client.sendOk('orders', { body: 1, group_id: 'g', delay_seconds: 1 });
  await rq.client.sendOk('orders', { body: 2, group_id: 'g' });
  await rq.client.sendOk('orders', { body: 'other' });
  expect(bodies(await pull('orders'))).toEqual(['other']);
  // only delayed: not blocked
  expect((await view('orders')).blocked_groups).toBe(0);
  await sleep(1100);
  expect(bodies(await pull('orders'))).toEqual([1, 2]);
});

test('fair turns: at most ceil(batch / ready groups) from one group, oldest head first', async () => {
  await rq.client.batchOk('orders', {
    messages: Array.from({ length: 50 }, (_, i) => ({ body: `big${i}`, group_id: 'big' })),
  });
  await rq.client.batchOk('orders', {
    messages: [{ body: 's1', group_id: 's1' }, { body: 's2', group_id: 's2' }, { body: 'plain' }],
  });
  // 4 ready groups (the plain message is one of its own): ceil(10 / 4) = 3 from big
  const first = await pull('orders', { batch_size: 10 });
  expect(bodies(first)).toEqual(['big0', 'big1', 'big2', 's1', 's2', 'plain']);
});

test('one group with a backlog cannot hold back the others', async () => {
  await rq.client.batchOk('orders', {
    messages: Array.from({ length: 100 }, (_, i) => ({ body: i, group_id: 'big' })),
  });
  await rq.client.batchOk('orders', {
    messages: Array.from({ length: 20 }, (_, i) => ({ body: `g${i}`, group_id: `g${i}` })),
  });
  const pulled = await pull('orders', { batch_size: 100 });
  // 21 ready groups: ceil(100 / 21) = 5 from big, and every small group
  expect(pulled.filter((m) => m.group_id === 'big')).toHaveLength(5);
  expect(pulled.filter((m) => m.group_id !== 'big')).toHaveLength(20);
});

test('batch sends keep order within each group', async () => {
  await rq.client.batchOk('orders', {
    messages: [
      { body: 'a1', group_id: 'a' },
      { body: 'b1', group_id: 'b' },
      { body: 'a2', group_id: 'a' },
      { body: 'b2', group_id: 'b' },
      { body: 'a3', group_id: 'a' },
    ],
  });
  const seen: Record<string, unknown[]> = { a: [], b: [] };
  for (let i = 0; i < 5; i++) {
    const got = await pull('orders', { batch_size: 1 });
    if (got.length === 0) break;
    seen[got[0].group_id!].push(got[0].body);
    await rq.client.ackOk('orders', [got[0].lease_id]);
  }
  expect(seen).toEqual({ a: ['a1', 'a2', 'a3'], b: ['b1', 'b2'] });
});

test('20 concurrent pullers never hold two messages of one group unless from one pull', async () => {
  const groups = 10;
  const perGroup = 12;
  const messages = [];
  for (let i = 0; i < perGroup; i++)
    for (let g = 0; g < groups; g++) messages.push({ body: { g, i }, group_id: `g${g}` });
  for (let i = 0; i < messages.length; i += 100)
    await rq.client.batchOk('orders', { messages: messages.slice(i, i + 100) });
  const holder = new Map<string, number>(); // group -> puller holding it
  const received: Record<string, number[]> = {};
  let violations = 0;
  let done = 0;
  const puller = async (id: number) => {
    let idle = 0;
    while (done < groups * perGroup && idle < 20) {
      const got = await pull('orders', { batch_size: 3 });
      if (got.length === 0) {
        idle++;
        await sleep(5);
        continue;
      }
      idle = 0;
      const mine = new Set(got.map((m) => m.group_id!));
      for (const g of mine) {
        if (holder.has(g)) violations++;
        holder.set(g, id);
      }
      for (const m of got) {
        const { g, i } = m.body as { g: number; i: number };
        (received[g] ??= []).push(i);
      }
      await sleep(Math.random() * 5);
      for (const g of mine) holder.delete(g);
      // a few retries: the retried head comes back first
      const retry = got.filter(() => Math.random() < 0.1).slice(0, 1);
      const ack = got.filter((m) => !retry.includes(m));
      if (retry.length > 0) {
        // messages after the retried one in the same pull are retried too, to keep order
        const at = got.indexOf(retry[0]);
        const back = got.slice(at);
        await rq.client.ackOk('orders', {
          lease_ids: got.slice(0, at).map((m) => m.lease_id),
          retries: back.map((m) => ({ lease_id: m.lease_id })),
        });
        done += at;
        for (const m of back) {
          const { g } = m.body as { g: number };
          received[g].pop();
        }
      } else {
        await rq.client.ackOk(
          'orders',
          ack.map((m) => m.lease_id),
        );
        done += ack.length;
      }
    }
  };
  await configure('orders', { max_attempts: 100 });
  await Promise.all(Array.from({ length: 20 }, (_, i) => puller(i)));
  expect(violations).toBe(0);
  expect(done).toBe(groups * perGroup);
  for (let g = 0; g < groups; g++)
    expect(received[g]).toEqual(Array.from({ length: perGroup }, (_, i) => i));
  const v = await view('orders');
  expect([v.groups, v.blocked_groups, v.queued]).toEqual([0, 0, 0]);
}, 120_000);

test('group_order fair: fair turns without locking or order', async () => {
  await configure('orders', { group_order: 'fair' });
  expect((await view('orders')).config.group_order).toBe('fair');
  await rq.client.batchOk('orders', {
    messages: [1, 2, 3, 4].map((n) => ({ body: n, group_id: 'g' })),
  });
  await rq.client.sendOk('orders', { body: 'h', group_id: 'h' });
  // two ready groups: ceil(2 / 2) = 1 from each
  expect(bodies(await pull('orders', { batch_size: 2 }))).toEqual([1, 'h']);
  // not locked: the group's next messages go on while 1 is in flight
  expect(bodies(await pull('orders', { batch_size: 2 }))).toEqual([2, 3]);
  expect((await view('orders')).blocked_groups).toBe(0);
});

test('group_order cannot change while the channel holds grouped messages (400)', async () => {
  await rq.client.sendOk('orders', { body: 1, group_id: 'g' });
  const res = await rq.client.configure('orders', { group_order: 'fair' });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].message).toContain('group_order');
  expect((await view('orders')).config.group_order).toBe('strict');
  const [m] = await pull('orders');
  await rq.client.ackOk('orders', [m.lease_id]);
  await configure('orders', { group_order: 'fair' });
});

test('a FIFO channel refuses a message without group_id (400), storing nothing', async () => {
  await configure('orders', { fifo: true });
  expect((await view('orders')).config.fifo).toBe(true);
  const res = await rq.client.batch('orders', {
    messages: [{ body: 1, group_id: 'g' }, { body: 2 }],
  });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].message).toContain('messages[1].group_id');
  expect((await view('orders')).queued).toBe(0);
  await rq.client.sendOk('orders', { body: 1, group_id: 'g' });
});

test('purge and delete remove every group key', async () => {
  await rq.client.batchOk('orders', {
    messages: [1, 2].map((n) => ({ body: n, group_id: 'g' })),
  });
  await pull('orders', { batch_size: 1 });
  await rq.client.purgeOk('orders');
  expect((await view('orders')).groups).toBe(0);
  await rq.client.sendOk('orders', { body: 3, group_id: 'g' });
  expect(bodies(await pull('orders'))).toEqual([3]);
  await rq.app.http.delete('/v1/relay/channels/orders').set('Authorization', rq.auth).expect(200);
  const left = (await rq.redis.keys('rq:{acme}:c:orders*')).filter((k) => !k.endsWith(':sn'));
  expect(left).toEqual([]);
});
