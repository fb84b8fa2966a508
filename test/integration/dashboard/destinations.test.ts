/**
 * The dashboard's channel view and its push destination, in a real browser (Debian's
 * Chromium driven by playwright-core): the channel's dead messages with their redrive, the
 * destination's state and last attempts (status, duration), pause/resume, retry now and
 * rotate secret, every value written as text. A real HTTP receiver on loopback.
 */
import http from 'node:http';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { signInLink } from '../../../src/embedded/quickStart';
import { eventually } from '../../helpers/app';
import { bearerApi, launchChromium, SHOTS } from '../../helpers/browser';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ listen: true, env: { RELAY_DESTINATIONS_ALLOW_PRIVATE: 'true' } });
let browser: Browser;
let receiver: http.Server;
let target = '';
let status = 500;
let requests = 0;

beforeAll(async () => {
  browser = await launchChromium();
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(status, { 'Content-Type': 'text/html' });
      // markup in an answer is shown as text, never as HTML
      res.end('<img src=x onerror="document.title=\'owned\'">');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/in`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const api = (method: string, urlPath: string, token: string, body?: unknown) =>
  bearerApi(rq.app.baseUrl, method, urlPath, token, body);

async function waitForText(p: Page, selector: string, text: string | RegExp): Promise<void> {
  const ok = (t: string) => (typeof text === 'string' ? t === text : text.test(t));
  for (let i = 0; i < 300; i++) {
    const t = ((await p.locator(selector).textContent()) ?? '').trim();
    if (ok(t)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(((await p.locator(selector).textContent()) ?? '').trim()).toMatch(text);
}

test('the channel view shows its dead messages and destination; redrive, pause/resume, retry now, rotate secret', async () => {
  await rq.app.relay.store.accounts.create('pusher', 'free');
  const owner = (await rq.app.relay.relay.tokens.issue('pusher', { role: 'owner' })).token;
  const created = await api('POST', '/v1/relay/channels/orders/destinations', owner, {
    url: target,
    retry: { schedule_seconds: [0], max_attempts: 2 },
  });
  expect(created.status).toBe(200);
  const secret = created.body.result.secret as string;
  status = 500;
  await api('POST', '/v1/relay/channels/orders/messages', owner, { body: { n: 1 } });
  const deadCount = async () =>
    (await api('GET', '/v1/relay/channels/orders', owner)).body.result.dead_count;
  await eventually(async () => (await deadCount()) === 1, 10_000);

  const context = await browser.newContext();
  const p = await context.newPage();
  try {
    await p.goto(signInLink(rq.app.baseUrl, owner));
    await p.getByRole('heading', { name: 'Usage' }).waitFor();
    await p.getByRole('button', { name: 'Channels' }).click();
    await p.getByRole('button', { name: 'Open channel orders' }).click();

    await waitForText(p, '#dead-count', '1');
    await waitForText(p, '#dst-url', target);
    await waitForText(p, '#dst-state', 'active, 2 failures in a row');
    expect(await p.locator('#dst-failure').textContent()).toMatch(/ago \(.*\): HTTP 500$/);
    await p.locator('#attempt-rows tr').nth(1).waitFor();
    const rows = p.locator('#attempt-rows tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td[data-field="status"]').textContent()).toBe('500');
    expect(await rows.nth(0).locator('td[data-field="duration"]').textContent()).toMatch(
      /^\d+ ms$/,
    );
    expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('2');
    expect(await rows.nth(0).locator('td').last().textContent()).toBe(
      '<img src=x onerror="document.title=\'owned\'">',
    );
    expect(await p.locator('#attempt-rows img').count()).toBe(0);
    expect(await p.title()).not.toBe('owned');
    await p.screenshot({ path: path.join(SHOTS, 'destination.png'), fullPage: true });

    // the channel's redrive brings the dead message back; the receiver now takes it
    status = 200;
    await p.getByRole('button', { name: 'Redrive dead messages' }).click();
    await p.getByText('Redriven: 1 message available again.').waitFor();
    await eventually(() => requests === 3, 10_000);
    await waitForText(p, '#dead-count', '0');
    await waitForText(p, '#attempt-rows tr:first-child td[data-field="status"]', '200');
    await waitForText(p, '#dst-state', 'active');

    await p.getByRole('button', { name: 'Pause the push destination' }).click();
    await p.getByText('Paused the push destination: messages wait in the channel.').waitFor();
    await waitForText(p, '#dst-state', 'paused');
    const paused = await api('GET', '/v1/relay/channels/orders/destinations', owner);
    expect((paused.body.result.destinations as { state: string }[])[0].state).toBe('paused');
    await p.getByRole('button', { name: 'Resume the push destination' }).click();
    await p.getByText('Resumed the push destination.').waitFor();
    await waitForText(p, '#dst-state', 'active');

    // retry now: the destination's dead messages back at once
    status = 500;
    await api('POST', '/v1/relay/channels/orders/messages', owner, { body: { n: 2 } });
    await eventually(async () => (await deadCount()) === 1, 10_000);
    await waitForText(p, '#dead-count', '1');
    status = 200;
    await p.getByRole('button', { name: 'Retry now' }).click();
    await p.getByText('Retrying now: 1 message available again.').waitFor();
    await eventually(() => requests === 6, 10_000);
    await eventually(async () => (await deadCount()) === 0, 10_000);

    await p.getByRole('button', { name: 'Rotate secret' }).click();
    await p.getByRole('button', { name: 'Confirm' }).click();
    await p.getByText('Signing secret rotated.').waitFor();
    const rotated = await p.getByLabel('New destination secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
  } finally {
    await context.close();
  }
}, 90_000);
