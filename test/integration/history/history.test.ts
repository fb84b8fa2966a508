/** Message history (issue 28): history_seconds, timelines, retention, search, replay one. */
import { eventually, sleep, storageBytes } from '../../helpers/app';
import { expectError } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'hh', env: { RELAY_HISTORY_COUNT_INTERVAL_MS: '100' } });

const get = (path: string) => rq.http.get(path).set('Authorization', rq.auth);
const post = (path: string, body: object = {}) =>
  rq.http.post(path).set('Authorization', rq.auth).send(body);
const historyOf = (channel: string, query = '') =>
  get(`/v1/relay/channels/${channel}/history${query}`);
const detail = async (channel: string, id: string) => {
  const res = await get(`/v1/relay/channels/${channel}/history/${id}`);
  expect(res.status).toBe(200);
  return res.body.result;
};
const types = (d: { timeline: { type: string }[] }) => d.timeline.map((t) => t.type);

async function historyOn(channel: string, seconds = 3600, more: object = {}) {
  const res = await rq.client.configure(channel, { history_seconds: seconds, ...more });
  expect(res.status).toBe(200);
  return res.body.result;
}

test('history off (the default): an ack deletes everything, no key is left, the list is empty', async () => {
  await rq.client.sendOk('orders', { body: { a: 1 } });
  const [m] = (await rq.client.pullOk('orders')).messages;
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
  expect((await rq.redis.keys('rq:{hh}:c:orders*')).sort()).toEqual([]);
  const res = await historyOf('orders');
  expect(res.status).toBe(200);
  expect(res.body.result).toEqual({ items: [], next_cursor: null });
  expect((await rq.client.channel('orders')).body.result.config.history_seconds).toBe(0);
});

test("history_seconds is at most the plan's max_history_seconds (free: 86400), else a 400", async () => {
  const res = await rq.client.configure('orders', { history_seconds: 86_401 });
  expectError(res, 400, "history_seconds must be at most 86400 (the plan's max_history_seconds)");
  expect((await rq.client.configure('orders', { history_seconds: -1 })).status).toBe(400);
  const on = await historyOn('orders', 86_400);
  expect(on.config.history_seconds).toBe(86_400);
  const off = await rq.client.configure('orders', { history_seconds: 0 });
  expect(off.body.result.config.history_seconds).toBe(0);
});

test('an acked message: received, delivery, retry, delivery, ack; the record stays with its body', async () => {
  await historyOn('orders');
  const id = await rq.client.sendOk('orders', {
    body: { order: 7, note: '<script>x</script>' },
    metadata: { source: 'x' },
    group_id: 'g1',
  });
  let [m] = (await rq.client.pullOk('orders')).messages;
  await rq.client.retryOk('orders', [{ lease_id: m.lease_id, delay_seconds: 0 }]);
  [m] = (await rq.client.pullOk('orders')).messages;
  expect(await rq.client.ackOk('orders', [m.lease_id])).toBe(1);
  const d = await detail('orders', id);
  expect(types(d)).toEqual(['received', 'delivery', 'retry', 'delivery', 'ack']);
  expect(d).toMatchObject({
    id,
    entrance: 'api',
    status: 'acked',
    attempts: 2,
    group_id: 'g1',
    body: { order: 7, note: '<script>x</script>' },
    content_type: 'json',
    metadata: { source: 'x' },
    webhook: null,
    size: 53,
  });
  expect(d.timeline[0]).toEqual({ type: 'received', at: d.received_at, entrance: 'api' });
  expect(d.timeline[1]).toMatchObject({ type: 'delivery', attempt: 1 });
  expect(d.timeline[2]).toMatchObject({ type: 'retry', delay_ms: 0 });
  // the ended record counts toward storage
  expect(await storageBytes(rq.app, 'hh')).toBe(53);
  const list = (await historyOf('orders')).body.result;
  expect(list.items).toEqual([
    {
      id,
      received_at: d.received_at,
      entrance: 'api',
      status: 'acked',
      attempts: 2,
      size: 53,
      group_id: 'g1',
      preview: '{"order":7,"note":"<script>x</script>"}',
    },
  ]);
});

test('dead-lettered, discarded, expired and purged messages end their timelines so', async () => {
  await historyOn('jobs', 3600, { max_attempts: 1, dead_letter_channel: 'jobs-dlq' });
  await historyOn('drop', 3600, { max_attempts: 1 });
  await historyOn('short', 3600, { retention_seconds: 1 });
  await historyOn('gone');
  const dead = await rq.client.sendOk('jobs', { body: 1 });
  let [m] = (await rq.client.pullOk('jobs')).messages;
  await rq.client.retryOk('jobs', [{ lease_id: m.lease_id }]);
  const dropped = await rq.client.sendOk('drop', { body: 2 });
  [m] = (await rq.client.pullOk('drop')).messages;
  await rq.client.retryOk('drop', [{ lease_id: m.lease_id }]);
  const expired = await rq.client.sendOk('short', { body: 3 });
  const purged = await rq.client.sendOk('gone', { body: 4 });
  expect(await rq.client.purgeOk('gone')).toBe(1);

  const d1 = await detail('jobs', dead);
  expect(d1.status).toBe('dead');
  expect(d1.timeline[2]).toMatchObject({ type: 'dead_letter', dead_letter_channel: 'jobs-dlq' });
  const d2 = await detail('drop', dropped);
  expect(d2.status).toBe('dead');
  expect(d2.timeline[2]).toMatchObject({ type: 'dead_letter', dead_letter_channel: null });
  const d4 = await detail('gone', purged);
  expect(types(d4)).toEqual(['received', 'purged']);
  expect(d4.status).toBe('purged');
  await eventually(async () => (await detail('short', expired)).status === 'expired', 4000);
  expect(types(await detail('short', expired))).toEqual(['received', 'expired']);
  // every ended record counts its bytes (3 each), and the dead-lettered message lives on in jobs-dlq
  expect(await storageBytes(rq.app, 'hh')).toBe(15);
});

test('pending and in-flight messages show so; status and filter searches', async () => {
  await historyOn('orders');
  const a = await rq.client.sendOk('orders', { body: { kind: 'a', n: 1 } });
  const b = await rq.client.sendOk('orders', { body: { kind: 'b', n: 2 } });
  const c = await rq.client.sendOk('orders', { body: { kind: 'a', n: 3 } });
  const [m] = (await rq.client.pullOk('orders', { batch_size: 1 })).messages;
  expect(m.id).toBe(a);
  const all = (await historyOf('orders')).body.result.items;
  expect(all.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
    [c, 'pending'],
    [b, 'pending'],
    [a, 'in_flight'],
  ]);
  const inFlight = (await historyOf('orders', '?status=in_flight')).body.result.items;
  expect(inFlight.map((i: { id: string }) => i.id)).toEqual([a]);
  const filter = encodeURIComponent(JSON.stringify({ body: { kind: 'a' } }));
  const kindA = (await historyOf('orders', `?filter=${filter}`)).body.result.items;
  expect(kindA.map((i: { id: string }) => i.id)).toEqual([c, a]);
  // pages of one, newest first, then null
  const p1 = (await historyOf('orders', '?limit=1')).body.result;
  expect(p1.items.map((i: { id: string }) => i.id)).toEqual([c]);
  const p2 = (await historyOf('orders', `?limit=2&cursor=${p1.next_cursor}`)).body.result;
  expect(p2.items.map((i: { id: string }) => i.id)).toEqual([b, a]);
  expect(p2.next_cursor).toBeNull();
  // since/until on received_at, inclusive, epoch ms or ISO-8601
  const at = all[1].received_at;
  const iso = new Date(at).toISOString();
  const range = (await historyOf('orders', `?since=${iso}&until=${at}`)).body.result.items;
  expect(range.map((i: { id: string }) => i.id)).toContain(b);
});

test('bad parameters are 400s naming them', async () => {
  await historyOn('orders');
  expectError(
    await historyOf('orders', '?status=done'),
    400,
    'status must be one of pending, in_flight, acked, dead, expired, purged',
  );
  expectError(
    await historyOf('orders', '?since=yesterday'),
    400,
    'since must be epoch milliseconds or an ISO-8601 time',
  );
  expectError(
    await historyOf('orders', '?limit=101'),
    400,
    'limit must be a whole number from 1 to 100',
  );
  expectError(
    await historyOf('orders', '?filter=%7B'),
    400,
    'filter must be a JSON filter (docs/api/filters.md)',
  );
  expectError(
    await historyOf('orders', '?cursor=abc'),
    400,
    'cursor must be a next_cursor of an earlier page',
  );
  expectError(
    await get('/v1/relay/channels/orders/history/nope'),
    400,
    'messageId must be a message id (a UUID)',
  );
  const missing = '00000000-0000-4000-8000-000000000000';
  expectError(
    await get(`/v1/relay/channels/orders/history/${missing}`),
    404,
    `message ${missing} is not in the history of channel orders`,
  );
});

test('records go within 2 s after history_seconds; their storage is freed and no key is left', async () => {
  await historyOn('orders', 1);
  const id = await rq.client.sendOk('orders', { body: 'x' });
  const [m] = (await rq.client.pullOk('orders')).messages;
  await rq.client.ackOk('orders', [m.lease_id]);
  const ended = Date.now();
  expect((await detail('orders', id)).status).toBe('acked');
  expect(await storageBytes(rq.app, 'hh')).toBe(5);
  await sleep(900);
  expect((await get(`/v1/relay/channels/orders/history/${id}`)).status).toBe(200);
  await eventually(async () => (await historyOf('orders')).body.result.items.length === 0, 3000);
  expect(Date.now() - ended).toBeLessThan(3000);
  expect(await storageBytes(rq.app, 'hh')).toBe(0);
  expect(await rq.redis.keys('rq:{hh}:c:orders:h*')).toEqual([]);
});

test('turning history off, deleting the channel or the account removes its history and storage', async () => {
  await historyOn('orders');
  await historyOn('other');
  for (const ch of ['orders', 'other']) {
    await rq.client.sendOk(ch, { body: 1 });
    const [m] = (await rq.client.pullOk(ch)).messages;
    await rq.client.ackOk(ch, [m.lease_id]);
  }
  expect(await storageBytes(rq.app, 'hh')).toBe(6);
  await rq.client.configure('orders', { history_seconds: 0 });
  expect(await rq.redis.keys('rq:{hh}:c:orders:h*')).toEqual([]);
  expect(await storageBytes(rq.app, 'hh')).toBe(3);
  const del = await rq.http.delete('/v1/relay/channels/other').set('Authorization', rq.auth);
  expect(del.status).toBe(200);
  expect(await rq.redis.keys('rq:{hh}:c:other:*')).toEqual([]);
  expect(await storageBytes(rq.app, 'hh')).toBe(0);
});

test('replay one: exact body and metadata, metadata.replay.of, to itself or another channel', async () => {
  await historyOn('orders');
  const body = { z: 1, a: [1.5, 'é'], html: '<b>' };
  const id = await rq.client.sendOk('orders', { body, metadata: { k: 'v' } });
  const [m] = (await rq.client.pullOk('orders')).messages;
  await rq.client.ackOk('orders', [m.lease_id]);
  const same = await post(`/v1/relay/channels/orders/history/${id}/replay`);
  expect(same.status).toBe(200);
  const copyId = same.body.result.id;
  expect(copyId).not.toBe(id);
  const other = await post(`/v1/relay/channels/orders/history/${id}/replay`, { to: 'elsewhere' });
  expect(other.status).toBe(200);
  const [copy] = (await rq.client.pullOk('orders')).messages;
  expect(copy).toMatchObject({ id: copyId, body, metadata: { k: 'v', replay: { of: id } } });
  const [there] = (await rq.client.pullOk('elsewhere')).messages;
  expect(there).toMatchObject({ id: other.body.result.id, body, metadata: { replay: { of: id } } });
  expect((await detail('orders', copyId)).entrance).toBe('replay');
  expectError(
    await post(`/v1/relay/channels/orders/history/${id}/replay`, { to: 'bad/id' }),
    400,
    expect.any(String) as unknown as string,
  );
  expectError(
    await post(`/v1/relay/channels/orders/history/${id}/replay`, { into: 'x' }),
    400,
    'into is not a field of a replay; use to',
  );
});

test('grouped messages: their records show group_id, a replay keeps the group and its order rules', async () => {
  await historyOn('orders', 3600, { max_attempts: 10 });
  const first = await rq.client.sendOk('orders', { body: 1, group_id: 'cust-1' });
  const second = await rq.client.sendOk('orders', { body: 2, group_id: 'cust-1' });
  const loose = await rq.client.sendOk('orders', { body: 3 });
  // strict order: one pull takes the group's share (both, one turn) and the loose message
  const pulled = (await rq.client.pullOk('orders', { batch_size: 10 })).messages;
  expect(pulled.map((m) => m.id).sort()).toEqual([first, second, loose].sort());
  const byId = new Map(pulled.map((m) => [m.id, m]));
  await rq.client.ackOk('orders', [byId.get(first)!.lease_id]);
  await rq.client.retryOk('orders', [{ lease_id: byId.get(second)!.lease_id, delay_seconds: 0 }]);
  const items = (await historyOf('orders')).body.result.items as {
    id: string;
    group_id: string | null;
    status: string;
  }[];
  const groupOf = new Map(items.map((i) => [i.id, i.group_id]));
  expect(groupOf.get(first)).toBe('cust-1');
  expect(groupOf.get(second)).toBe('cust-1');
  expect(groupOf.get(loose)).toBeNull();
  const d = await detail('orders', second);
  expect(d).toMatchObject({ group_id: 'cust-1', status: 'pending', attempts: 1 });
  expect(types(d)).toEqual(['received', 'delivery', 'retry']);

  // replays of an ended grouped message go to its group, behind the group's head
  const copy = (await post(`/v1/relay/channels/orders/history/${first}/replay`)).body.result.id;
  expect((await detail('orders', copy)).group_id).toBe('cust-1');
  const next = (await rq.client.pullOk('orders', { batch_size: 10 })).messages;
  expect(next).toMatchObject([
    { id: second, group_id: 'cust-1' },
    { id: copy, group_id: 'cust-1' },
  ]);
  // a grouped lease that runs out: a retry (lease_expired) before the next delivery
  await rq.client.retryOk(
    'orders',
    next.map((m) => ({ lease_id: m.lease_id, delay_seconds: 0 })),
  );
  const pull1 = { visibility_timeout_ms: 1000, batch_size: 1 };
  const [again] = (await rq.client.pullOk('orders', pull1)).messages;
  expect(again.id).toBe(second);
  await sleep(1500);
  await eventually(
    async () => (await rq.client.pullOk('orders', { batch_size: 1 })).messages.length === 1,
  );
  const timeline = (await detail('orders', second)).timeline;
  expect(timeline.map((t: { type: string }) => t.type)).toEqual([
    'received',
    'delivery',
    'retry',
    'delivery',
    'retry',
    'delivery',
    'retry',
    'delivery',
  ]);
  expect(timeline[6]).toMatchObject({ type: 'retry', reason: 'lease_expired' });

  // a FIFO channel takes the copy only with its group_id
  expect((await rq.client.configure('fifo', { fifo: true })).status).toBe(200);
  const moved = (await post(`/v1/relay/channels/orders/history/${first}/replay`, { to: 'fifo' }))
    .body.result.id;
  const [there] = (await rq.client.pullOk('fifo')).messages;
  expect(there).toMatchObject({ id: moved, group_id: 'cust-1', body: 1 });
});

test('a webhook delivery: entrance webhook, its request and verdict, hostile values kept as text', async () => {
  await historyOn('inbox');
  const created = await post('/v1/relay/channels/inbox/webhooks', {});
  expect(created.status).toBe(200);
  const path = new URL(created.body.result.url).pathname;
  const hostile = '<img src=x onerror="alert(1)">';
  const res = await rq.http
    .post(`${path}?a=1`)
    .set('Content-Type', 'application/json')
    .set('X-Evil', hostile)
    .send('{"action":"</script><script>alert(1)</script>"}');
  expect(res.status).toBe(200);
  const [item] = (await historyOf('inbox')).body.result.items;
  expect(item).toMatchObject({ entrance: 'webhook', status: 'pending', attempts: 0 });
  const d = await detail('inbox', item.id);
  expect(d).toMatchObject({
    entrance: 'webhook',
    content_type: 'text',
    body: '{"action":"</script><script>alert(1)</script>"}',
    webhook: { method: 'POST', verified: null },
  });
  expect(d.webhook.query).toContain('a=1');
  expect(d.webhook.headers['x-evil']).toBe(hostile);
  // a replay keeps the request's headers (metadata.webhook) byte for byte
  const copy = await post(`/v1/relay/channels/inbox/history/${item.id}/replay`, { to: 'local' });
  const pulled = (await rq.client.pullOk('local')).messages[0];
  expect(pulled.id).toBe(copy.body.result.id);
  expect(pulled.body).toBe(d.body);
  expect((pulled.metadata as { webhook: { headers: object } }).webhook.headers).toEqual(
    d.webhook.headers,
  );
});

test('metrics: relayq_history_records and relayq_replayed_messages_total', async () => {
  await historyOn('orders');
  const replayed = async () =>
    (await rq.app.relay.metrics.replayed.get()).values.reduce((n, v) => n + v.value, 0);
  const before = await replayed();
  const id = await rq.client.sendOk('orders', { body: 1 });
  await rq.client.sendOk('orders', { body: 2 });
  await post(`/v1/relay/channels/orders/history/${id}/replay`);
  // counted every RELAY_HISTORY_COUNT_INTERVAL_MS
  await eventually(async () =>
    /^relayq_history_records 3$/m.test(await rq.app.relay.metrics.registry.metrics()),
  );
  const text = await rq.app.relay.metrics.registry.metrics();
  expect(text).toMatch(/^relayq_replayed_messages_total \d+$/m);
  expect((await replayed()) - before).toBe(1);
});

test('a dead letter redriven back and acked: one record, charged once, its timeline goes on', async () => {
  await historyOn('jobs', 3600, { max_attempts: 1, dead_letter_channel: 'jobs-dlq' });
  const id = await rq.client.sendOk('jobs', { body: 1 });
  let [m] = (await rq.client.pullOk('jobs')).messages;
  await rq.client.retryOk('jobs', [{ lease_id: m.lease_id }]);
  expect(await rq.client.redriveOk('jobs-dlq')).toBe(1);
  [m] = (await rq.client.pullOk('jobs')).messages;
  expect(m.id).toBe(id);
  await rq.client.ackOk('jobs', [m.lease_id]);
  expect(types(await detail('jobs', id))).toEqual([
    'received',
    'delivery',
    'dead_letter',
    'delivery',
    'ack',
  ]);
  expect(await storageBytes(rq.app, 'hh')).toBe(3);
});

test('a routed copy is received with entrance route in each target whose history is on', async () => {
  await historyOn('billing');
  const routes = await rq.http
    .put('/v1/relay/channels/stripe-in/routes')
    .set('Authorization', rq.auth)
    .send({ routes: [{ to: 'billing' }, { to: 'analytics' }] });
  expect(routes.status).toBe(200);
  const sent = await post('/v1/relay/channels/stripe-in/messages', {
    body: { type: 'invoice.paid' },
    group_id: 'cus_9',
  });
  expect(sent.status).toBe(200);
  const [billing, analytics] = sent.body.result.routed as { channel: string; id: string }[];
  const d = await detail('billing', billing.id);
  expect(d.entrance).toBe('route');
  expect(d.group_id).toBe('cus_9');
  expect(d.metadata.route).toEqual({ from: 'stripe-in', id: billing.id });
  expect(types(d)).toEqual(['received']);
  // analytics keeps no history (its default): its list is empty
  expect(analytics.channel).toBe('analytics');
  expect((await historyOf('analytics')).body.result.items).toEqual([]);
});
