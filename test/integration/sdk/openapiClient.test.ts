/**
 * A client generated from the served OpenAPI document, as a user of another
 * TypeScript stack makes one: openapi-typescript turns GET /v1/openapi.json
 * into types, a small openapi-fetch client sends a message with metadata,
 * pulls it and reads its metadata; tsc (strict) compiles it and node runs it
 * against the relay.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { useRelay } from '../../helpers/useRelay';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
// inside the repository, so that the client resolves openapi-fetch from its node_modules
const DIR = path.join(ROOT, 'test-artifacts', `openapi-client-${process.pid}`);

const rq = useRelay({ listen: true, account: 'acme' });

beforeAll(() => fs.mkdirSync(DIR, { recursive: true }));
afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));

const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './relayq.js';

const relay = createClient<paths>({
  baseUrl: process.env.RELAY_URL,
  headers: { Authorization: \`Bearer \${process.env.RELAY_TOKEN}\` },
});
const channel = { params: { path: { channelId: 'orders' } } };

const sent = await relay.POST('/v1/relay/channels/{channelId}/messages', {
  ...channel,
  body: { body: { order: 42 }, metadata: { source: 'shop', tries: 2, tags: ['a'] } },
});
if (!sent.data) throw new Error(JSON.stringify(sent.error));
// null only when the channel has routes and none stored a copy (docs/api/routes.md)
const id: string | null = sent.data.result.id;

const pulled = await relay.POST('/v1/relay/channels/{channelId}/messages/pull', {
  ...channel,
  body: { batch_size: 10, visibility_timeout_ms: 30000 },
});
if (!pulled.data) throw new Error(JSON.stringify(pulled.error));
const [message] = pulled.data.result.messages;
const source: unknown = message.metadata.source;
const leaseId: string = message.lease_id;

const acked = await relay.POST('/v1/relay/channels/{channelId}/messages/ack', {
  ...channel,
  body: { lease_ids: [leaseId] },
});
console.log(JSON.stringify({ id, pulled: message.id, source, metadata: message.metadata, acked: acked.data?.result.acked_count }));
`;

test('the served document names this relay and generates a typed client that compiles (strict) and works', async () => {
  const served = await fetch(`${rq.app.baseUrl}/v1/openapi.json`);
  expect(served.status).toBe(200);
  const doc = (await served.json()) as { servers: { url: string }[] };
  expect(doc.servers).toEqual([{ url: rq.app.baseUrl, description: 'this relay' }]);

  const generator = path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
  await run(process.execPath, [
    generator,
    `${rq.app.baseUrl}/v1/openapi.json`,
    '--output',
    path.join(DIR, 'relayq.ts'),
  ]);
  fs.writeFileSync(path.join(DIR, 'client.mts'), CLIENT);
  fs.writeFileSync(path.join(DIR, 'package.json'), '{"type":"module"}\n');
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const compiled = await run(process.execPath, [
    tsc,
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--types',
    'node',
    '--outDir',
    path.join(DIR, 'out'),
    path.join(DIR, 'client.mts'),
  ]).catch((err: { stdout: string }) => ({ stdout: `tsc failed:\n${err.stdout}` }));
  expect(compiled.stdout).toBe('');

  const { stdout } = await run(process.execPath, [path.join(DIR, 'out', 'client.mjs')], {
    env: { PATH: process.env.PATH ?? '', RELAY_URL: rq.app.baseUrl, RELAY_TOKEN: rq.token },
  });
  const result = JSON.parse(stdout);
  expect(result).toEqual({
    id: result.pulled,
    pulled: expect.stringMatching(/^[0-9a-f-]{36}$/),
    source: 'shop',
    metadata: { source: 'shop', tries: 2, tags: ['a'] },
    acked: 1,
  });
}, 120_000);
