/**
 * The dashboard's routes editor and filter tester in a real browser (Debian's Chromium
 * driven by playwright-core, never a downloaded browser).
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { useRelay } from '../../helpers/useRelay';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const rq = useRelay({ listen: true, flush: false });
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

test('the channel view edits routes, refuses a bad filter by its path, and tests a message', async () => {
  await rq.app.relay.store.accounts.create('routed', 'free');
  const owner = (await rq.app.relay.relay.tokens.issue('routed', { role: 'owner', name: 'o' }))
    .token;
  await fetch(`${rq.app.baseUrl}/v1/relay/channels/stripe/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${owner}`, 'Content-Type': 'application/json' },
    body: '{"body":1}',
  });
  await page.goto(`${rq.app.baseUrl}/dashboard`);
  await page.getByLabel('Owner token').fill(owner);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Usage' }).waitFor();
  await page.getByRole('button', { name: 'Channels' }).click();
  await page.getByRole('button', { name: 'Open channel stripe' }).click();
  const editor = page.getByLabel('Routes (JSON)');
  await page.waitForFunction(() =>
    (document.querySelector('#routes-json') as HTMLTextAreaElement).value.includes('drop'),
  );
  expect(JSON.parse(await editor.inputValue())).toEqual({
    routes: [],
    keep: false,
    unmatched: 'drop',
  });

  await editor.fill(
    '{"routes": [{"to": "billing", "filter": {"body": {"amount": {"$gte": "x", "$lt": []}}}}]}',
  );
  await page.getByRole('button', { name: 'Save routes' }).click();
  await page.getByText('routes[0].filter.body.amount.$lt').waitFor();

  const routes = {
    routes: [
      { to: 'billing', filter: { body: { type: { $startsWith: 'invoice.' } } } },
      { to: 'analytics' },
    ],
  };
  await editor.fill(JSON.stringify(routes));
  await page.getByRole('button', { name: 'Save routes' }).click();
  await page.getByText('Routes saved').waitFor();
  const stored = await fetch(`${rq.app.baseUrl}/v1/relay/channels/stripe/routes`, {
    headers: { Authorization: `Bearer ${owner}` },
  });
  expect(((await stored.json()) as { result: unknown }).result).toEqual({
    ...routes,
    keep: false,
    unmatched: 'drop',
  });

  await page
    .getByLabel('A stored message (JSON, as pulled or peeked)')
    .fill('{"id": "x", "body": {"type": "invoice.paid"}, "content_type": "json", "metadata": {}}');
  await page.getByRole('button', { name: 'Test', exact: true }).click();
  await page.waitForFunction(() =>
    document.querySelector('#routes-test-result')?.textContent?.includes('copies'),
  );
  expect(await page.locator('#routes-test-result').textContent()).toBe(
    '[0] -> billing: matches\n[1] -> analytics: matches\ncopies: billing, analytics',
  );
});
