/** relayq routes set | get | test | delete, end to end: the built CLI against a real relay. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useRelay } from '../../helpers/useRelay';
import { CLI, ROOT, runCli } from '../sdk/support';

let dir: string;
const rq = useRelay({ listen: true, account: 'acme' });

beforeAll(() => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'relayq-routes-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const relayq = (args: string[]) =>
  runCli(CLI, args, { RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token, XDG_CONFIG_HOME: dir });

test('set from a file, get, test a message file, delete', async () => {
  const routes = {
    routes: [
      { to: 'billing', filter: { body: { type: { $startsWith: 'invoice.' } } } },
      { to: 'analytics' },
    ],
  };
  const file = path.join(dir, 'routes.json');
  writeFileSync(file, JSON.stringify(routes));
  const set = await relayq(['routes', 'set', 'stripe', '--file', file]);
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout)).toEqual({ ...routes, keep: false, unmatched: 'drop' });
  const got = await relayq(['routes', 'get', 'stripe']);
  expect(JSON.parse(got.stdout).routes).toEqual(routes.routes);

  const message = path.join(dir, 'message.json');
  writeFileSync(message, JSON.stringify({ body: { type: 'customer.created' } }));
  const tested = await relayq(['routes', 'test', 'stripe', '--file', message]);
  expect(JSON.parse(tested.stdout)).toEqual({ matched: [1], channels: ['analytics'] });

  const bad = path.join(dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({ routes: [{ to: 'x', filter: { body: { n: { $gt: [] } } } }] }),
  );
  const refused = await relayq(['routes', 'set', 'stripe', '--file', bad]);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('routes[0].filter.body.n.$gt');

  const deleted = await relayq(['routes', 'delete', 'stripe']);
  expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true });
});

test('test a stored message by id: read from the history of the channel it is in', async () => {
  const auth = `Bearer ${rq.token}`;
  const on = await rq.http
    .put('/v1/relay/channels/inbox')
    .set('Authorization', auth)
    .send({ history_seconds: 3600 });
  expect(on.status).toBe(200);
  const sent = await rq.http
    .post('/v1/relay/channels/inbox/messages')
    .set('Authorization', auth)
    .send({ body: { type: 'invoice.paid' } });
  const id = sent.body.result.id as string;
  const routes = path.join(dir, 'routes-2.json');
  writeFileSync(
    routes,
    JSON.stringify({
      routes: [
        { to: 'billing', filter: { body: { type: { $startsWith: 'invoice.' } } } },
        { to: 'support', filter: { body: { type: 'charge.dispute.created' } } },
      ],
    }),
  );
  expect((await relayq(['routes', 'set', 'stripe2', '--file', routes])).code).toBe(0);
  const tested = await relayq(['routes', 'test', 'stripe2', '--message', id, '--from', 'inbox']);
  expect(tested.code).toBe(0);
  expect(JSON.parse(tested.stdout)).toEqual({ matched: [0], channels: ['billing'] });
  // neither or both: a usage error
  const neither = await relayq(['routes', 'test', 'stripe2']);
  expect(neither.code).not.toBe(0);
  expect(neither.stderr).toContain('--message <id> or --file');
  // a message the channel's history does not hold: the relay's 404
  const missing = await relayq(['routes', 'test', 'stripe2', '--message', id]);
  expect(missing.code).not.toBe(0);
});
