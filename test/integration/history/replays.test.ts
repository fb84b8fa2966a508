/** Bulk replay jobs (issue 28): dry run, progress, cancel, one job per channel, a pod's death. */
import { eventually, sleep, type TestApp } from '../../helpers/app';
import { expectError, type PulledMessage } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ account: 'rj', pods: 2, env: { RELAY_REPLAY_TICK_MS: '50' } });

const post = (path: string, body: object, app: TestApp = rq.a) =>
  app.http.post(path).set('Authorization', rq.auth).send(body);
const jobs = '/v1/relay/channels/orders/replays';
const job = async (id: string) => {
  const res = await rq.a.http.get(`${jobs}/${id}`).set('Authorization', rq.auth);
  expect(res.status).toBe(200);
  return res.body.result;
};

/** n messages in orders (history on), half of them kind 'x'; all acked. */
async function history(n: number): Promise<string[]> {
  expect((await rq.client.configure('orders', { history_seconds: 3600 })).status).toBe(200);
  const ids = await rq.client.batchOk('orders', {
    messages: Array.from({ length: n }, (_, i) => ({ body: { i, kind: i % 2 ? 'x' : 'y' } })),
  });
  for (;;) {
    const pulled = await rq.client.pullOk('orders', { batch_size: 100 });
    if (pulled.messages.length === 0) break;
    await rq.client.ackOk(
      'orders',
      pulled.messages.map((m) => m.lease_id),
    );
  }
  return ids;
}

async function drain(channel: string): Promise<PulledMessage[]> {
  const out: PulledMessage[] = [];
  for (;;) {
    const pulled = await rq.client.pullOk(channel, { batch_size: 100 });
    if (pulled.messages.length === 0) return out;
    out.push(...pulled.messages);
    await rq.client.ackOk(
      channel,
      pulled.messages.map((m) => m.lease_id),
    );
  }
}

const originals = (copies: PulledMessage[]) =>
  copies.map((m) => (m.metadata as { replay: { of: string } }).replay.of).sort();

test('a dry run counts what the job then replays, and the job replays exactly that set', async () => {
  const ids = await history(40);
  const filter = { body: { kind: 'x' } };
  const dry = await post(jobs, { since: 0, filter, to: 'copies', dry_run: true });
  expect(dry.status).toBe(200);
  expect(dry.body.result).toMatchObject({
    state: 'planned',
    matched: 20,
    replayed: 0,
    started_at: null,
    finished_at: null,
  });
  expect(await job(dry.body.result.id)).toMatchObject({ state: 'planned', matched: 20 });
  const real = await post(jobs, { since: 0, filter, to: 'copies', rate_per_second: 1000 });
  expect(real.body.result).toMatchObject({ state: 'queued', matched: 20, replayed: 0 });
  await eventually(async () => (await job(real.body.result.id)).state === 'done', 5000);
  const done = await job(real.body.result.id);
  expect(done).toMatchObject({ matched: 20, replayed: 20 });
  expect(done.finished_at).toBeGreaterThanOrEqual(done.started_at);
  const copies = await drain('copies');
  expect(originals(copies)).toEqual(ids.filter((_, i) => i % 2 === 1).sort());
  // (oldest first; one batch's messages share their received_at millisecond)
  expect(copies.map((m) => (m.body as { i: number }).i).sort((x, y) => x - y)).toEqual(
    Array.from({ length: 20 }, (_, i) => 2 * i + 1),
  );
});

test('bad job parameters are 400s naming them', async () => {
  await history(1);
  expectError(
    await post(jobs, {}),
    400,
    'since is required (epoch milliseconds or an ISO-8601 time)',
  );
  expectError(
    await post(jobs, { since: 0, rate_per_second: 0 }),
    400,
    'rate_per_second must be a whole number from 1 to 10000',
  );
  expectError(
    await post(jobs, { since: 0, rate_per_second: 10_001 }),
    400,
    'rate_per_second must be a whole number from 1 to 10000',
  );
  expectError(
    await post(jobs, { since: 0, speed: 1 }),
    400,
    'speed is not a field of a replay job',
  );
  expectError(
    await post(jobs, { since: 0, until: 'later' }),
    400,
    'until must be epoch milliseconds or an ISO-8601 time',
  );
  expectError(await post(jobs, { since: 0, dry_run: 'yes' }), 400, 'dry_run must be true or false');
  const missing = '00000000-0000-4000-8000-000000000000';
  expectError(
    await rq.a.http.get(`${jobs}/${missing}`).set('Authorization', rq.auth),
    404,
    `replay job ${missing} does not exist`,
  );
});

test('cancel: no new copy a second after the answer', async () => {
  await history(60);
  const created = await post(jobs, { since: 0, to: 'copies', rate_per_second: 20 });
  const id = created.body.result.id;
  await eventually(async () => (await job(id)).replayed >= 5, 5000);
  const del = await rq.a.http.delete(`${jobs}/${id}`).set('Authorization', rq.auth);
  expect(del.status).toBe(200);
  expect(del.body.result.state).toBe('cancelled');
  await sleep(1000);
  const after = (await drain('copies')).length;
  await sleep(600);
  expect((await drain('copies')).length).toBe(0);
  expect(after).toBeLessThan(60);
  expect((await job(id)).state).toBe('cancelled');
});

test('two jobs on one channel: the second waits (queued) until the first is done', async () => {
  await history(30);
  const first = (await post(jobs, { since: 0, to: 'one', rate_per_second: 30 })).body.result;
  const second = (await post(jobs, { since: 0, to: 'two', rate_per_second: 1000 })).body.result;
  await eventually(async () => (await job(first.id)).state === 'running', 3000);
  expect((await job(second.id)).state).toBe('queued');
  await eventually(async () => (await job(first.id)).state === 'done', 5000);
  await eventually(async () => (await job(second.id)).state === 'done', 5000);
  expect((await job(second.id)).started_at).toBeGreaterThanOrEqual(
    (await job(first.id)).finished_at,
  );
  expect((await drain('one')).length).toBe(30);
  expect((await drain('two')).length).toBe(30);
});

test('a pod that dies mid-job: another takes it over when its lease lapses, no copy twice', async () => {
  const ids = await history(60);
  const id = (await post(jobs, { since: 0, to: 'copies', rate_per_second: 15 })).body.result.id;
  await eventually(async () => (await job(id)).replayed >= 5, 5000);
  const holder = await rq.a.relay.context.redis.get('rq:{rj}:c:orders:replay_lease');
  const dying = [rq.a, rq.b].find((p) => p.relay.replayRunner.podId === holder)!;
  const other = dying === rq.a ? rq.b : rq.a;
  await dying.relay.replayRunner.stop();
  // the copies the dead pod stored but had not recorded are stored again under the same
  // dedup ids: the dedup index answers the first copies
  await eventually(async () => (await job(id)).state === 'done', 12_000);
  expect(await rq.a.relay.context.redis.get('rq:{rj}:c:orders:replay_lease')).toBeNull();
  expect(other.relay.replayRunner.podId).not.toBe(holder);
  const copies = await drain('copies');
  expect(originals(copies)).toEqual([...ids].sort());
  expect((await job(id)).replayed).toBe(60);
  dying.relay.replayRunner.start();
}, 30_000);

test('a job over more records than one read of the index (1,000) matches them all', async () => {
  expect((await rq.client.configure('orders', { history_seconds: 3600 })).status).toBe(200);
  for (let b = 0; b < 25; b++) {
    await rq.client.batchOk('orders', {
      messages: Array.from({ length: 100 }, (_, i) => ({ body: { i: b * 100 + i } })),
    });
  }
  const all = await post(jobs, { since: 0, dry_run: true });
  expect(all.body.result).toMatchObject({ state: 'planned', matched: 2500 });
  const filtered = await post(jobs, {
    since: 0,
    filter: { body: { i: { $gte: 1200 } } },
    dry_run: true,
  });
  expect(filtered.body.result).toMatchObject({ state: 'planned', matched: 1300 });
});
