/** `relayq history list|show` and `relayq replay` end to end: the built CLI against a real relay. */
import { execFileSync } from 'node:child_process';
import { useRelay } from '../../helpers/useRelay';
import { CLI, ROOT, runCli } from '../sdk/support';

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}, 120_000);
const rq = useRelay({ listen: true, account: 'hcli' });
const run = (args: string[]) =>
  runCli(CLI, args, { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token });

test('history list and show (with the group), replay --dry-run, replay --to until done; a bad status is refused', async () => {
  expect((await rq.client.configure('orders', { history_seconds: 3600 })).status).toBe(200);
  const grouped = await rq.client.sendOk('orders', { body: { n: 1 }, group_id: 'cust-7' });
  const loose = await rq.client.sendOk('orders', { body: { n: 2 } });
  const [m] = (await rq.client.pullOk('orders', { batch_size: 1 })).messages;
  expect(m.id).toBe(grouped);
  await rq.client.ackOk('orders', [m.lease_id]);

  const listed = await run(['history', 'list', 'orders', '--json']);
  expect(listed.code).toBe(0);
  const page = JSON.parse(listed.stdout);
  expect(page.nextCursor).toBeNull();
  expect(page.items).toMatchObject([
    { id: loose, status: 'pending', groupId: null, preview: '{"n":2}' },
    { id: grouped, status: 'acked', attempts: 1, groupId: 'cust-7', preview: '{"n":1}' },
  ]);
  // (piped, the CLI prints JSON: its table and progress line are for a terminal)
  const acked = await run(['history', 'list', 'orders', '--status', 'acked']);
  expect(JSON.parse(acked.stdout).items.map((i: { id: string }) => i.id)).toEqual([grouped]);

  const shown = await run(['history', 'show', 'orders', grouped]);
  expect(shown.code).toBe(0);
  const record = JSON.parse(shown.stdout);
  expect(record).toMatchObject({ id: grouped, groupId: 'cust-7', body: { n: 1 }, webhook: null });
  expect(record.timeline.map((t: { type: string }) => t.type)).toEqual([
    'received',
    'delivery',
    'ack',
  ]);
  expect(record.timeline[1]).toMatchObject({ attempt: 1, via: 'pull' });

  const dry = await run(['replay', 'orders', '--since', '1h', '--dry-run', '--json']);
  expect(JSON.parse(dry.stdout)).toMatchObject({ state: 'planned', matched: 2 });
  const real = await run(['replay', 'orders', '--since', '1h', '--to', 'laptop']);
  expect(real.code).toBe(0);
  expect(JSON.parse(real.stdout)).toMatchObject({
    state: 'done',
    matched: 2,
    replayed: 2,
    to: 'laptop',
  });
  const copies = (await rq.client.pullOk('laptop', { batch_size: 10 })).messages;
  expect(
    copies.map((c) => c.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  ).toEqual([{ n: 1 }, { n: 2 }]);
  expect(copies.find((c) => JSON.stringify(c.body) === '{"n":1}')).toMatchObject({
    group_id: 'cust-7',
  });
  const bad = await run(['history', 'list', 'orders', '--status', 'lost']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain(
    'status must be one of pending, in_flight, acked, dead, expired, purged',
  );
}, 60_000);
