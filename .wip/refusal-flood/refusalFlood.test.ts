/**
 * A refusal flood is as cheap for a neighbour as accepted load: one account floods its own
 * webhook URL with forged deliveries (401, then 429 past webhook_refusals_per_second) and
 * its channel with long polls over its cap (429), 400 a second from 64 connections in a
 * process of its own (the hostile probe's flood was about 300 refusals a second); another account's sends on the same pod keep their median within 3x of their
 * baseline measured in the same test.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { accountWithToken, type ListeningApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { createHook } from '../webhooks/hooks';

jest.setTimeout(120_000);

const PLANS = {
  capped: {
    max_storage_bytes: 1_000_000,
    max_channels: 5,
    retention_seconds: 3600,
    max_long_polls: 2,
  },
};
const rq = useRelay({ listen: true, env: { RELAY_PLANS: JSON.stringify(PLANS) } });
const FLOOD = path.join(__dirname, '../../helpers/flood.mjs');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** n sends, one after another on one keep-alive connection: each one's time in ms. */
async function timedSends(app: ListeningApp, auth: string, n: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify({ body: { n: i } });
      const started = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${app.baseUrl}/v1/relay/channels/work/messages`,
          {
            method: 'POST',
            agent,
            headers: { authorization: auth, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      expect(status).toBe(200);
    }
  } finally {
    agent.destroy();
  }
  return times;
}

test('a refusal flood from one account leaves another account within 3x of its baseline', async () => {
  const app = rq.app;
  const victim = await accountWithToken(app, 'victim');
  await app.relay.store.accounts.create('flooder', 'capped');
  const flooder = await accountWithToken(app, 'flooder');
  const hook = await createHook(app, flooder.auth, 'inbox', {
    verify: { scheme: 'github', secret: 'the-real-secret' },
  });
  await timedSends(app, victim.auth, 20); // warm-up
  const baseline = median(await timedSends(app, victim.auth, 40));

  // the flooder holds its 2 long-poll places, then floods
  const pull = JSON.stringify({ wait_ms: 20_000 });
  const held = [0, 1].map(
    () =>
      new Promise<void>((resolve) => {
        const req = http.request(
          `${app.baseUrl}/v1/relay/channels/jobs/messages/pull`,
          {
            method: 'POST',
            headers: { authorization: flooder.auth, 'content-type': 'application/json' },
          },
          (res) => res.resume().on('end', resolve),
        );
        req.on('error', () => resolve());
        req.end(pull);
      }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const forged = JSON.stringify({ action: 'opened', number: 1 });
  const child = spawn(
    process.execPath,
    [
      FLOOD,
      JSON.stringify({
        url: app.baseUrl,
        connections: 64,
        // the probe's flood: about 300 refusals a second (docs/guarantees.md)
        ratePerSecond: 400,
        requests: [
          {
            path: new URL(hook.url).pathname,
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'issues',
              'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
            },
            body: forged,
          },
          {
            path: '/v1/relay/channels/jobs/messages/pull',
            headers: { authorization: flooder.auth, 'content-type': 'application/json' },
            body: pull,
          },
        ],
      }),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  await new Promise<void>((resolve) => {
    const started = () => (out.includes('started') ? resolve() : setTimeout(started, 20));
    started();
  });
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the flood at full speed
  const during = median(await timedSends(app, victim.auth, 40));
  child.stdin.end('stop\n');
  await new Promise((resolve) => child.on('exit', resolve));
  const statuses = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
  const refused = (statuses['401'] ?? 0) + (statuses['429'] ?? 0);
  console.log(
    `refusal flood: ${JSON.stringify(statuses)}; victim's send median ${baseline.toFixed(2)} ms alone, ${during.toFixed(2)} ms during the flood`,
  );
  // it was a flood, refused: no forged delivery was stored (a 200 is a long poll that got
  // a place once a held one ended, and found nothing)
  expect(refused).toBeGreaterThan(200);
  const inbox = await app.http
    .post('/v1/relay/channels/inbox/messages/pull')
    .set('Authorization', flooder.auth)
    .send({ batch_size: 100 });
  expect(inbox.body.result.messages).toHaveLength(0);
  expect(during).toBeLessThanOrEqual(3 * baseline);
  // the victim's rate was never touched; the flooder's account still serves its consumers
  const ok = await app.http
    .post('/v1/relay/channels/jobs/messages')
    .set('Authorization', flooder.auth)
    .send({ body: 'after' });
  expect(ok.status).toBe(200);
  await Promise.all(held);
});
