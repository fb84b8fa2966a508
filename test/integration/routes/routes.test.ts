/**
 * Routes (issue 27): a channel's routes fan each message out to the channels whose filter it
 * matches, in one atomic step, by every entrance; set on one pod, used by every pod at once.
 */
import { accountWithToken, startApp, type TestApp } from '../../helpers/app';
import { accountOnPods, useTwoPods } from '../../helpers/pods';
import { relay, UUID } from '../../helpers/relayClient';
import { createHook, deliver, listenOnPods } from '../webhooks/hooks';

const pods = useTwoPods((redis) =>
  startApp(redis, {
    RELAY_PLANS:
      '{"tiny":{"max_storage_bytes":700,"max_channels":10,"retention_seconds":60},' +
      '"few":{"max_storage_bytes":1000000,"max_channels":3,"retention_seconds":60},' +
      '"wide":{"max_storage_bytes":10000000,"max_channels":100,"retention_seconds":600}}',
  }),
);
listenOnPods(pods);

const routesPath = (channel: string) => `/v1/relay/channels/${channel}/routes`;

const put = (app: TestApp, auth: string, channel: string, body: unknown) =>
  app.http
    .put(routesPath(channel))
    .set('Authorization', auth)
    .send(body as object);
const get = (app: TestApp, auth: string, channel: string) =>
  app.http.get(routesPath(channel)).set('Authorization', auth);

async function putOk(app: TestApp, auth: string, channel: string, body: unknown) {
  const res = await put(app, auth, channel, body);
  if (res.status !== 200) throw new Error(`PUT routes: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

/** Every message in the channel now (leased for a minute). */
async function drain(app: TestApp, auth: string, channel: string) {
  const res = await relay(app, auth).pullOk(channel, {
    batch_size: 100,
    visibility_timeout_ms: 60000,
  });
  return res.messages as {
    id: string;
    body: unknown;
    content_type: string;
    metadata: Record<string, unknown>;
    lease_id: string;
    attempts: number;
  }[];
}

const STRIPE = {
  routes: [
    { to: 'billing', filter: { body: { type: { $startsWith: 'invoice.' } } } },
    { to: 'support', filter: { body: { type: 'charge.dispute.created' } } },
    { to: 'analytics' },
  ],
};

test('PUT replaces, GET returns on every pod, DELETE removes', async () => {
  const { auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  expect((await get(pods.a, auth, 'stripe')).body.result).toEqual({
    routes: [],
    keep: false,
    unmatched: 'drop',
  });
  const set = await putOk(pods.a, auth, 'stripe', STRIPE);
  expect(set).toEqual({ ...STRIPE, keep: false, unmatched: 'drop' });
  expect((await get(pods.b, auth, 'stripe')).body.result).toEqual(set);
  // the targets exist from the PUT on
  expect((await relay(pods.b, auth).channel('billing')).status).toBe(200);
  const del = await pods.b.http.delete(routesPath('stripe')).set('Authorization', auth);
  expect(del.body.result).toEqual({ deleted: true });
  expect((await get(pods.a, auth, 'stripe')).body.result.routes).toEqual([]);
  const again = await pods.b.http.delete(routesPath('stripe')).set('Authorization', auth);
  expect(again.body.result).toEqual({ deleted: false });
});

test('a message is stored as one copy per matching route, in route order, each its own message', async () => {
  const { auth, ca, cb } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'stripe', STRIPE);
  // pod b learns of the routes on its first send (its cache said "no routes")
  const res = await cb.send('stripe', { body: { type: 'invoice.paid', amount: 1200 } });
  expect(res.status).toBe(200);
  const { id, routed } = res.body.result;
  expect(routed.map((r: { channel: string }) => r.channel)).toEqual(['billing', 'analytics']);
  expect(id).toBe(routed[0].id);
  expect(routed[0].id).not.toBe(routed[1].id);
  for (const r of routed) expect(r.id).toMatch(UUID);
  const billing = await drain(pods.a, auth, 'billing');
  const analytics = await drain(pods.a, auth, 'analytics');
  expect(billing.map((m) => m.id)).toEqual([routed[0].id]);
  expect(analytics.map((m) => m.id)).toEqual([routed[1].id]);
  for (const m of [...billing, ...analytics]) {
    expect(m.body).toEqual({ type: 'invoice.paid', amount: 1200 });
    expect(m.metadata.route).toEqual({ from: 'stripe', id });
  }
  expect(await drain(pods.a, auth, 'support')).toEqual([]);
  // the routed channel itself keeps nothing
  expect(await drain(pods.a, auth, 'stripe')).toEqual([]);

  const dispute = await ca.send('stripe', { body: { type: 'charge.dispute.created' } });
  expect(dispute.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual([
    'support',
    'analytics',
  ]);
});

test('keep stores the kept copy first; unmatched drops (id null) or goes to the named channel', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'in', {
    routes: [{ to: 'big', filter: { body: { n: { $gte: 10 } } } }],
  });
  const dropped = await ca.send('in', { body: { n: 1 } });
  expect(dropped.body.result).toEqual({ id: null, routed: [] });
  const metrics = await pods.a.relay.metrics.registry.getSingleMetricAsString(
    'relayq_routed_messages_total',
  );
  expect(metrics).toMatch(/relayq_routed_messages_total\{result="unmatched"\} [1-9]/);

  await putOk(pods.a, auth, 'in', {
    routes: [{ to: 'big', filter: { body: { n: { $gte: 10 } } } }],
    keep: true,
    unmatched: 'rest',
  });
  const small = (await ca.send('in', { body: { n: 1 }, metadata: { route: 'mine', k: 1 } })).body
    .result;
  expect(small.routed.map((r: { channel: string }) => r.channel)).toEqual(['in', 'rest']);
  const big = (await ca.send('in', { body: { n: 10 } })).body.result;
  expect(big.routed.map((r: { channel: string }) => r.channel)).toEqual(['in', 'big']);
  const kept = await drain(pods.a, auth, 'in');
  expect(kept.map((m) => m.id)).toEqual([small.id, big.id]);
  // the relay's route replaces one of the sender's; the rest of the metadata is kept
  expect(kept[0].metadata).toEqual({ k: 1, route: { from: 'in', id: small.id } });
  expect((await drain(pods.a, auth, 'rest')).map((m) => m.id)).toEqual([small.routed[1].id]);
});

test('bad routes are a 400 naming the field, changing nothing', async () => {
  const { auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'src', { routes: [{ to: 'a' }] });
  const cases: [unknown, string][] = [
    [
      {
        routes: [
          { to: 'a' },
          { to: 'b' },
          { to: 'c', filter: { body: { amount: { $gte: true } } } },
        ],
      },
      'routes[2].filter.body.amount.$gte must be a number',
    ],
    [{ routes: [{ to: 'src' }] }, 'routes[0].to must name another channel'],
    [{ routes: [{ to: 'a' }, { to: 'a' }] }, 'routes[1].to'],
    [{ routes: [{ to: 'a', filter: { body: { x: 'y'.repeat(5000) } } }] }, 'routes[0].filter'],
    [{ routes: Array.from({ length: 51 }, (_, i) => ({ to: `t${i}` })) }, 'at most 50'],
    [{ routes: [{ to: 'a', filter: { body: { x: { $in: 1 } } } }] }, 'routes[0].filter.body.x.$in'],
    [{ routes: [{ to: 'a', filter: { body: { x: { $exist: 1 } } } }] }, '$exist must be a boolean'],
    [{ routes: [{ to: 'a', filter: { nope: 1 } }] }, 'routes[0].filter.nope'],
    [{ routes: [], unmatched: 'src' }, 'unmatched'],
    [{ routes: [], keep: 'yes' }, 'keep'],
    [{}, 'routes'],
  ];
  for (const [body, message] of cases) {
    const res = await put(pods.a, auth, 'src', body);
    expect([res.status, res.body.errors[0].message]).toEqual([
      400,
      expect.stringContaining(message),
    ]);
  }
  expect((await get(pods.b, auth, 'src')).body.result.routes).toEqual([{ to: 'a' }]);
});

test('routes do not chain: both ways refused naming both channels, atomically', async () => {
  const { auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'one', { routes: [{ to: 'two' }] });
  // routes on a target
  const onTarget = await put(pods.b, auth, 'two', { routes: [{ to: 'three' }] });
  expect(onTarget.status).toBe(400);
  expect(onTarget.body.errors[0].message).toMatch(/two.*one|one.*two/);
  // a route into a channel with routes (and a cycle)
  const intoRouted = await put(pods.b, auth, 'three', { routes: [{ to: 'one' }] });
  expect(intoRouted.status).toBe(400);
  expect(intoRouted.body.errors[0].message).toMatch(/one.*three|three.*one/);
  const unmatchedInto = await put(pods.b, auth, 'four', { routes: [], unmatched: 'one' });
  expect(unmatchedInto.status).toBe(400);
  // once one's routes are gone, two may route
  await pods.a.http.delete(routesPath('one')).set('Authorization', auth);
  await putOk(pods.b, auth, 'two', { routes: [{ to: 'three' }] });
  // replacing routes forgets the old targets: one -> x, then one -> y frees x
  await putOk(pods.a, auth, 'five', { routes: [{ to: 'x' }] });
  await putOk(pods.a, auth, 'five', { routes: [{ to: 'y' }] });
  await putOk(pods.a, auth, 'x', { routes: [{ to: 'z' }] });
});

test('scoped tokens route only into channels they may use, the unmatched one included', async () => {
  const { id, auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  const scoped = (await accountWithToken(pods.a, id, { channels: ['src', 'ok'] })).auth;
  await putOk(pods.a, scoped, 'src', { routes: [{ to: 'ok' }] });
  const into = await put(pods.a, scoped, 'src', { routes: [{ to: 'ok' }, { to: 'other' }] });
  expect(into.status).toBe(403);
  expect(into.body.errors[0].message).toContain('other');
  const unmatched = await put(pods.a, scoped, 'src', {
    routes: [{ to: 'ok' }],
    unmatched: 'other',
  });
  expect(unmatched.status).toBe(403);
  expect((await put(pods.a, scoped, 'elsewhere', { routes: [{ to: 'ok' }] })).status).toBe(403);
  expect((await get(pods.a, auth, 'src')).body.result.routes).toEqual([{ to: 'ok' }]);
  // a send by the scoped token is routed (the routes were allowed when set)
  const sent = await relay(pods.b, scoped).send('src', { body: 1 });
  expect(sent.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual(['ok']);
});

test('quotas: a copy over the storage limit stores none of them; targets count as channels', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'tiny' });
  await putOk(pods.a, auth, 'src', { routes: [{ to: 'a' }, { to: 'b' }, { to: 'c' }] });
  // each copy is ~200 bytes (body + metadata with its route): the third exceeds 700
  const body = 'x'.repeat(180);
  const res = await ca.send('src', { body });
  expect(res.status).toBe(403);
  expect(res.body.errors[0].message).toContain('storage');
  for (const ch of ['a', 'b', 'c']) expect(await drain(pods.a, auth, ch)).toEqual([]);
  // two copies fit
  await putOk(pods.a, auth, 'src', { routes: [{ to: 'a' }, { to: 'b' }] });
  expect((await ca.send('src', { body })).status).toBe(200);

  const few = await accountOnPods(pods, 'rt', { plan: 'few' });
  const limit = await put(pods.a, few.auth, 'src', {
    routes: [{ to: 'a' }, { to: 'b' }, { to: 'c' }],
  });
  expect(limit.status).toBe(403);
  expect(limit.body.errors[0].message).toContain('channel');
});

test('dedup applies per target; batches route each message', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'src', {
    routes: [{ to: 'a' }, { to: 'b', filter: { body: { b: true } } }],
  });
  const first = (await ca.send('src', { body: { b: false }, dedup_id: 'd1' })).body.result;
  expect(first.routed.map((r: { channel: string }) => r.channel)).toEqual(['a']);
  const second = (await ca.send('src', { body: { b: true }, dedup_id: 'd1' })).body.result;
  // a already holds d1: no copy there (its entry names the copy it holds); b gets one
  expect(second.routed[0]).toEqual({ channel: 'a', id: first.id });
  expect(second.routed[1].channel).toBe('b');
  expect((await drain(pods.a, auth, 'a')).length).toBe(1);
  expect((await drain(pods.a, auth, 'b')).length).toBe(1);

  const batch = await ca.batch('src', { messages: [{ body: { b: true } }, { body: 2 }] });
  expect(batch.status).toBe(200);
  const { ids, routed } = batch.body.result;
  expect(routed.map((r: { channel: string }[]) => r.map((c) => c.channel))).toEqual([
    ['a', 'b'],
    ['a'],
  ]);
  expect(ids).toEqual([routed[0][0].id, routed[1][0].id]);
});

test('each copy is independent: one target dead-letters while another acks', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  expect(
    (await ca.configure('fragile', { max_attempts: 1, dead_letter_channel: 'dlq' })).status,
  ).toBe(200);
  await putOk(pods.a, auth, 'src', { routes: [{ to: 'fragile' }, { to: 'solid' }] });
  await ca.send('src', { body: { n: 1 } });
  const [f] = await drain(pods.a, auth, 'fragile');
  const [s] = await drain(pods.a, auth, 'solid');
  expect(await ca.ackOk('solid', [s.lease_id])).toBe(1);
  await ca.retryOk('fragile', [{ lease_id: f.lease_id, delay_seconds: 0 }]);
  const dead = await drain(pods.a, auth, 'dlq');
  expect(dead.map((m) => m.id)).toEqual([f.id]);
  expect(await drain(pods.a, auth, 'solid')).toEqual([]);
});

test('webhook deliveries: exact bytes in every copy, filters on headers, query and text bodies', async () => {
  const { auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  const hook = await createHook(pods.a, auth, 'gh');
  await putOk(pods.a, auth, 'gh', {
    routes: [
      { to: 'ci', filter: { headers: { 'x-github-event': { $in: ['push', 'pull_request'] } } } },
      { to: 'chat', filter: { query: { team: 'web' }, body: { action: 'opened' } } },
      { to: 'raw', filter: { body: { $exist: false } } },
      { to: 'audit' },
    ],
  });
  const bytes = '{ "action" : "opened",  "n": 1 }\n';
  const res = await deliver(pods.b, `${hook.path}?team=web&team=ops`, bytes, {
    'X-GitHub-Event': 'pull_request',
    'Content-Type': 'application/json',
  });
  expect(res.status).toBe(200);
  // query team is [web, ops]: any element matches
  expect(res.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual([
    'ci',
    'chat',
    'audit',
  ]);
  for (const ch of ['ci', 'chat', 'audit']) {
    const [m] = await drain(pods.a, auth, ch);
    expect(m.content_type).toBe('text');
    expect(m.body).toBe(bytes);
    expect(
      (m.metadata.webhook as { headers: Record<string, string> }).headers['x-github-event'],
    ).toBe('pull_request');
    expect(m.metadata.route).toEqual({ from: 'gh', id: res.body.result.id });
  }
  // a body that is not JSON matches only $exist: false on the body
  const text = await deliver(pods.a, hook.path, 'hello, not json', { 'X-GitHub-Event': 'ping' });
  expect(text.body.result.routed.map((r: { channel: string }) => r.channel)).toEqual([
    'raw',
    'audit',
  ]);
  const [raw] = await drain(pods.a, auth, 'raw');
  expect(raw.body).toBe('hello, not json');
});

test('routes changed while sends run: each send sees the old or the new routes, never a mix', async () => {
  const { auth } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  const OLD = { routes: [{ to: 'x' }, { to: 'y' }] };
  const NEW = { routes: [{ to: 'p' }, { to: 'q' }, { to: 'r' }] };
  await putOk(pods.a, auth, 'src', OLD);
  const cb = relay(pods.b, auth);
  const results: string[][] = [];
  let flips = 0;
  const sending = (async () => {
    for (let i = 0; i < 60; i++) {
      const res = await cb.send('src', { body: i });
      expect(res.status).toBe(200);
      results.push(res.body.result.routed.map((r: { channel: string }) => r.channel));
    }
  })();
  const flipping = (async () => {
    for (let i = 0; i < 12; i++) {
      await putOk(pods.a, auth, 'src', i % 2 === 0 ? NEW : OLD);
      flips++;
    }
  })();
  await Promise.all([sending, flipping]);
  expect(flips).toBe(12);
  for (const r of results)
    expect([
      ['x', 'y'],
      ['p', 'q', 'r'],
    ]).toContainEqual(r);
  // every stored copy is one of a whole set: x and y hold the same sends, p, q and r too
  const bodies = async (ch: string) => (await drain(pods.a, auth, ch)).map((m) => m.body).sort();
  const [x, y, p, q, r] = await Promise.all(['x', 'y', 'p', 'q', 'r'].map(bodies));
  expect(y).toEqual(x);
  expect(q).toEqual(p);
  expect(r).toEqual(p);
  expect(x.length + p.length).toBe(60);
});

test('deleting a channel removes its routes; a deleted target is created again by its next copy', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'src', { routes: [{ to: 'dst' }] });
  await ca.send('src', { body: 1 });
  expect(
    (await pods.a.http.delete('/v1/relay/channels/dst').set('Authorization', auth)).status,
  ).toBe(200);
  const again = await relay(pods.b, auth).send('src', { body: 2 });
  expect(again.body.result.routed[0].channel).toBe('dst');
  expect((await drain(pods.a, auth, 'dst')).map((m) => m.body)).toEqual([2]);
  expect(
    (await pods.b.http.delete('/v1/relay/channels/src').set('Authorization', auth)).status,
  ).toBe(200);
  expect((await get(pods.a, auth, 'src')).body.result.routes).toEqual([]);
  // dst is no target any more: it may have routes now
  await putOk(pods.a, auth, 'dst', { routes: [{ to: 'other' }] });
  const plain = await ca.send('src', { body: 3 });
  expect(plain.body.result).toEqual({ id: expect.any(String) });
});

test('copies keep their group: each target holds the group in order; a FIFO target needs one', async () => {
  const { auth, ca } = await accountOnPods(pods, 'rt', { plan: 'wide' });
  await putOk(pods.a, auth, 'events', { routes: [{ to: 'ledger' }, { to: 'mail' }] });
  for (const n of [1, 2, 3]) {
    const res = await ca.send('events', { body: { n }, group_id: 'cus_1' });
    expect(res.status).toBe(200);
  }
  await ca.send('events', { body: { n: 4 }, group_id: 'cus_2' });
  for (const target of ['ledger', 'mail']) {
    // strict order: one pull takes the group's consecutive messages; the next pull gets none
    // of cus_1 while they are in flight
    const first = await relay(pods.a, auth).pullOk(target, {
      batch_size: 10,
      visibility_timeout_ms: 60000,
    });
    const seen = (first.messages as { body: { n: number }; group_id?: string }[]).map((m) => [
      m.group_id,
      m.body.n,
    ]);
    expect(seen).toEqual([
      ['cus_1', 1],
      ['cus_1', 2],
      ['cus_1', 3],
      ['cus_2', 4],
    ]);
  }
  await ca.send('events', { body: { n: 5 }, group_id: 'cus_1' });
  const held = await relay(pods.b, auth).pullOk('ledger', { batch_size: 10 });
  expect(held.messages).toEqual([]);

  // a FIFO target refuses a copy without group_id, storing no copy anywhere
  const fifo = await relay(pods.a, auth).configure('ordered', { fifo: true });
  expect(fifo.status).toBe(200);
  await putOk(pods.a, auth, 'orders', { routes: [{ to: 'audit' }, { to: 'ordered' }] });
  const refused = await ca.send('orders', { body: { n: 1 } });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0].message).toMatch(/group_id/);
  expect(await drain(pods.a, auth, 'audit')).toEqual([]);
});
