/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core
 * (never a downloaded browser). Screenshots of each page go to
 * test-artifacts/dashboard/ (not committed).
 */
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type Browser, type Page } from 'playwright-core';
import { signInLink } from '../../../src/embedded/quickStart';
import { bearerApi, launchChromium, SHOTS } from '../../helpers/browser';
import { redisServerBinary } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';
import { loadConfig } from '../../../src/config';
import { runServer, type RunningServer } from '../../../src/server';

// with an SQS key, so that tokens can be made with AWS credentials
const rq = useRelay({
  listen: true,
  flush: false,
  env: { RELAY_SQS_SECRET_KEY: 'dashboard-test-sqs-key-0123456789abcdef' },
});
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const api = (method: string, urlPath: string, token: string, body?: unknown) =>
  bearerApi(rq.app.baseUrl, method, urlPath, token, body);

test('an owner signs in, makes a scoped token, watches a channel live, purges, revokes and signs out', async () => {
  await rq.app.relay.store.accounts.create('acme', 'free');
  const owner = (await rq.app.relay.relay.tokens.issue('acme', { role: 'owner', name: 'owner' }))
    .token;

  await page.goto(`${rq.app.baseUrl}/dashboard`);
  await page.getByLabel('Owner token').fill('rq_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('that token was not accepted').waitFor();

  await page.getByLabel('Owner token').fill(owner);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Usage' }).waitFor();
  await page.getByText('0 of 5 channels').waitFor();
  expect(await page.evaluate(() => window.localStorage.length + window.sessionStorage.length)).toBe(
    0,
  );
  await page.screenshot({ path: path.join(SHOTS, 'usage.png') });

  // a token scoped to one channel, shown once, usable at once
  await page.getByRole('button', { name: 'Tokens' }).click();
  await page.getByLabel('Token name').fill('ci');
  await page.getByLabel('Allowed channels').fill('orders');
  await page.getByRole('button', { name: 'Create token' }).click();
  const created = page.getByLabel('New token');
  await created.waitFor();
  const token = await created.inputValue();
  expect(token).toMatch(/^rq_[0-9a-f]{16}.{43}_acme$/);
  await page.screenshot({ path: path.join(SHOTS, 'tokens.png') });
  expect(
    (await api('POST', '/v1/relay/channels/orders/messages', token, { body: { n: 1 } })).status,
  ).toBe(200);
  expect(
    (await api('POST', '/v1/relay/channels/alerts/messages', token, { body: { n: 1 } })).status,
  ).toBe(403);

  // the channel list updates live when messages arrive
  await page.getByRole('button', { name: 'Channels' }).click();
  const queued = page.locator('tr[data-channel="orders"] td[data-field="queued"]');
  await queued.waitFor();
  expect(await queued.textContent()).toBe('1');
  await page.locator('#live.on').waitFor();
  await api('POST', '/v1/relay/channels/orders/messages/batch', token, {
    messages: [{ body: 2 }, { body: 3 }],
  });
  await page.waitForFunction(
    () =>
      document.querySelector('tr[data-channel="orders"] td[data-field="queued"]')?.textContent ===
      '3',
    undefined,
    { timeout: 4000 },
  );
  await page.screenshot({ path: path.join(SHOTS, 'channels.png') });

  // pull a few and look at them, then purge with confirmation
  await page.getByRole('button', { name: 'Open channel orders' }).click();
  await page.getByRole('button', { name: 'Pull 5 messages' }).click();
  await page.getByText('attempts 1').first().waitFor();
  await page.getByRole('button', { name: 'Let them return' }).click();
  await page.getByRole('button', { name: 'Purge channel orders' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Purged 3 messages from orders.').waitFor();
  await page.waitForFunction(
    () =>
      document.querySelector('tr[data-channel="orders"] td[data-field="in_flight"]')
        ?.textContent === '0',
  );

  // revoke the scoped token with confirmation: it stops working at once
  await page.getByRole('button', { name: 'Tokens' }).click();
  await page.getByRole('button', { name: 'Revoke token ci' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Token revoked.').waitFor();
  expect((await api('POST', '/v1/relay/channels/orders/messages', token, { body: 1 })).status).toBe(
    401,
  );

  // sign out: back to the form, the session cookie no longer works
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'relayq_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const after = await fetch(`${rq.app.baseUrl}/v1/account`, {
    headers: { Cookie: `relayq_session=${session!.value}` },
  });
  expect(after.status).toBe(401);
}, 60_000);

test('in the channel view an owner creates a webhook URL (shown once), sees it receive, deletes it', async () => {
  await rq.app.relay.store.accounts.create('hooks', 'free');
  const owner = (await rq.app.relay.relay.tokens.issue('hooks', { role: 'owner', name: 'owner' }))
    .token;
  expect((await api('POST', '/v1/relay/channels/inbox/messages', owner, { body: 1 })).status).toBe(
    200,
  );
  await page.goto(`${rq.app.baseUrl}/dashboard`);
  await page.getByLabel('Owner token').fill(owner);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Usage' }).waitFor();
  await page.getByRole('button', { name: 'Channels' }).click();
  await page.getByRole('button', { name: 'Open channel inbox' }).click();

  await page.getByLabel('Label').fill('github');
  await page.getByLabel('Signature scheme').selectOption('github');
  await page.getByLabel('Signing secret').fill('dashboard-secret');
  await page.getByRole('button', { name: 'Create webhook URL' }).click();
  const created = page.getByLabel('Webhook URL', { exact: true });
  await created.waitFor();
  const url = await created.inputValue();
  expect(url).toMatch(new RegExp(`^${rq.app.baseUrl}/hooks/wh_[0-9a-f]{16}.{43}_hooks$`));
  await page.locator('#webhook-rows tr').first().waitFor();
  expect(await page.locator('#webhook-rows').textContent()).toContain('github');
  await page.screenshot({ path: path.join(SHOTS, 'webhooks.png') });

  const body = '{"zen":"Design for failure."}';
  const signature = `sha256=${crypto.createHmac('sha256', 'dashboard-secret').update(body).digest('hex')}`;
  const delivered = await fetch(url, {
    method: 'POST',
    headers: { 'X-Hub-Signature-256': signature },
    body,
  });
  expect(delivered.status).toBe(200);
  await page.getByRole('button', { name: 'Open channel inbox' }).click();
  await page.waitForFunction(
    () => document.querySelector('#webhook-rows tr td:nth-child(4)')?.textContent === '1',
  );
  expect(await page.locator('#webhook-rows tr td:nth-child(5)').textContent()).toMatch(/ago$/);

  // its text body is shown as the text it is, not as an escaped JSON string
  await page.getByRole('button', { name: 'Pull 5 messages' }).click();
  await page.getByText('Pulled 2 messages; they are hidden for 30 s.').waitFor();
  const pulled = await page.locator('#peeked li').allTextContents();
  expect(pulled).toHaveLength(2);
  expect(pulled[0]).toMatch(/ · json · attempts 1 · metadata \{\}\n1$/);
  expect(pulled[1]).toContain(' · text · attempts 1 · metadata {"webhook":');
  expect(pulled[1].endsWith(`\n${body}`)).toBe(true);
  await page.getByRole('button', { name: 'Ack these' }).click();
  await page.getByText('Acknowledged 2 messages.').waitFor();

  await page.getByRole('button', { name: 'Delete webhook github' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Webhook deleted.').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('#webhook-rows tr').length === 0);
  expect((await fetch(url, { method: 'POST', body })).status).toBe(404);
}, 60_000);

test('the quick start sign-in link opens a signed-in dashboard and leaves no token in the address bar', async () => {
  await rq.app.relay.store.accounts.create('local', 'paid');
  const owner = (
    await rq.app.relay.relay.tokens.issue('local', {
      role: 'owner',
      name: 'quick start owner',
    })
  ).token;
  const context = await browser.newContext();
  const fresh = await context.newPage();
  try {
    await fresh.goto(signInLink(rq.app.baseUrl, owner));
    await fresh.getByRole('heading', { name: 'Usage' }).waitFor();
    await fresh.getByText('account local', { exact: true }).waitFor();
    expect(fresh.url()).toBe(`${rq.app.baseUrl}/dashboard/`);
    expect(await fresh.evaluate(() => location.hash)).toBe('');
    // the session is a cookie: a reload stays signed in, with no token in sight
    await fresh.reload();
    await fresh.getByText('account local', { exact: true }).waitFor();
    // a relay token in the link is refused, with the sign-in form shown
    const relay = (await rq.app.relay.relay.tokens.issue('local', { name: 'r' })).token;
    const other = await (await browser.newContext()).newPage();
    await other.goto(signInLink(rq.app.baseUrl, relay));
    await other.getByText('that token was not accepted').waitFor();
    expect(other.url()).toBe(`${rq.app.baseUrl}/dashboard/`);
    await other.context().close();
  } finally {
    await context.close();
  }
}, 60_000);

/**
 * A new account with an owner token, and a browser context signed in as that
 * owner through the quick-start link (`watch` runs before the first load).
 */
async function signedInAs(
  account: string,
  watch: (p: Page) => void = () => {},
): Promise<{ p: Page; owner: string; close: () => Promise<void> }> {
  await rq.app.relay.store.accounts.create(account, 'free');
  const owner = (await rq.app.relay.relay.tokens.issue(account, { role: 'owner' })).token;
  const context = await browser.newContext();
  const p = await context.newPage();
  watch(p);
  await p.goto(signInLink(rq.app.baseUrl, owner));
  await p.getByRole('heading', { name: 'Usage' }).waitFor();
  return { p, owner, close: () => context.close() };
}

test('the channel view shows and sets the channel settings, and pauses and resumes delivery', async () => {
  const { p, owner, close } = await signedInAs('globex');
  try {
    await api('POST', '/v1/relay/channels/jobs/messages', owner, { body: 1 });
    await p.getByRole('button', { name: 'Channels' }).click();
    await p.getByRole('button', { name: 'Open channel jobs' }).click();
    expect(await p.getByLabel('Visibility timeout (ms)').inputValue()).toBe('30000');
    expect(await p.getByLabel('Retention (s)').inputValue()).toBe('259200');
    await p.getByLabel('Visibility timeout (ms)').fill('5000');
    await p.getByLabel('Delivery delay (s)').fill('2');
    await p.getByLabel('Retention (s)').fill('');
    await p.getByRole('checkbox', { name: 'Pause delivery' }).check();
    await p.getByRole('button', { name: 'Save configuration' }).click();
    await p.getByText('Saved the configuration of jobs.').waitFor();
    const saved = await api('GET', '/v1/relay/channels/jobs', owner);
    expect(saved.body.result.config).toMatchObject({
      visibility_timeout_ms: 5000,
      delay_seconds: 2,
      retention_seconds: 259200,
      paused: true,
    });
    const delivery = p.locator('tr[data-channel="jobs"] td[data-field="delivery"]');
    await waitForText(delivery, 'paused');
    await p.getByRole('button', { name: 'Resume delivery from channel jobs' }).click();
    await p.getByText('Resumed jobs.').waitFor();
    await waitForText(delivery, 'on');
    const resumed = await api('GET', '/v1/relay/channels/jobs', owner);
    expect(resumed.body.result.config).toMatchObject({ paused: false });
    await p.screenshot({ path: path.join(SHOTS, 'channel-settings.png') });
  } finally {
    await close();
  }
}, 60_000);

test('the Inspector shows hostile header and body values as text (no script runs) and replays from the detail pane and the dialog', async () => {
  const dialogs: string[] = [];
  const { p, owner, close } = await signedInAs('inspect', (page) =>
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    }),
  );
  try {
    const on = await api('PUT', '/v1/relay/channels/inbox', owner, { history_seconds: 3600 });
    expect(on.status).toBe(200);
    const hook = await api('POST', '/v1/relay/channels/inbox/webhooks', owner, {});
    const hostileHeader = '<img src=x onerror="window.__pwned=1;alert(1)">';
    const hostileBody =
      '{"html":"<img src=x onerror=window.__pwned=2;alert(2)>","end":"</pre><script>window.__pwned=3;alert(3)</script>"}';
    const delivered = await fetch(String(hook.body.result.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Evil': hostileHeader },
      body: hostileBody,
    });
    expect(delivered.status).toBe(200);
    const text = '<script>window.__pwned=4;alert(4)</script><b onmouseover=alert(5)>x</b>';
    const sent = await api('POST', '/v1/relay/channels/inbox/messages', owner, {
      body: text,
      content_type: 'text',
      group_id: 'tenant-1',
    });
    expect(sent.status).toBe(200);

    await p.getByRole('button', { name: 'Channels' }).click();
    await p.getByRole('button', { name: 'Inspector of channel inbox' }).click();
    await p.locator('#insp-rows tr').nth(1).waitFor();
    // the list's previews are the bodies' text
    const previews = await p.locator('#insp-rows tr td:nth-child(6)').allTextContents();
    expect(previews).toEqual([text, hostileBody]);
    const groups = await p.locator('#insp-rows tr td:nth-child(5)').allTextContents();
    expect(groups).toEqual(['tenant-1', '-']);

    // the webhook delivery's detail: the header and the body as text
    const items = (await api('GET', '/v1/relay/channels/inbox/history', owner)).body.result
      .items as unknown as { id: string; entrance: string }[];
    const original = items.find((i) => i.entrance === 'webhook')!.id;
    await p.getByRole('button', { name: `Show message ${original}` }).click();
    await p.locator('#insp-headers tr').first().waitFor();
    const evil = p.locator('#insp-headers tr', { has: p.locator('th', { hasText: /^x-evil$/ }) });
    expect(await evil.locator('td').textContent()).toBe(hostileHeader);
    expect(JSON.parse((await p.locator('#insp-body').textContent())!)).toEqual(
      JSON.parse(hostileBody),
    );
    expect(await p.locator('#insp-timeline li').first().textContent()).toContain(
      'received entrance=webhook',
    );
    await p.screenshot({ path: path.join(SHOTS, 'inspector.png') });

    // the Replay button of the detail pane: a copy in another channel, exact body and headers
    await p.getByLabel('Replay to channel (empty: this one)').fill('copies');
    await p.getByRole('button', { name: 'Replay', exact: true }).click();
    await p.getByText(/^Replayed as [0-9a-f-]{36}\.$/).waitFor();
    const copyId = (await p.locator('#status').textContent())!.slice('Replayed as '.length, -1);
    const pulled = await api('POST', '/v1/relay/channels/copies/messages/pull', owner, {});
    const [copy] = pulled.body.result.messages as unknown as {
      id: string;
      body: string;
      metadata: { replay: { of: string }; webhook: { headers: Record<string, string> } };
    }[];
    expect(copy.id).toBe(copyId);
    expect(copy.body).toBe(hostileBody);
    expect(copy.metadata.replay.of).toBe(original);
    expect(copy.metadata.webhook.headers['x-evil']).toBe(hostileHeader);

    // the other record's detail, then the bulk dialog: the dry run's count first, then done
    const other = items.find((i) => i.entrance === 'api')!.id;
    await p.getByRole('button', { name: `Show message ${other}` }).click();
    await waitForText(p.locator('#insp-body'), text);
    expect(await p.locator('#insp-detail-title').textContent()).toBe(
      `${other}: pending, 0 attempts, group tenant-1`,
    );
    await p.getByRole('button', { name: 'Replay all matching…' }).click();
    await p.getByText('2 messages match.').waitFor();
    await p.getByLabel('To channel (empty: this one)', { exact: true }).fill('bulk');
    await p.getByRole('button', { name: 'Start replay' }).click();
    await p.getByText('done: 2 of 2 replayed').waitFor({ timeout: 15_000 });
    expect((await api('GET', '/v1/relay/channels/bulk', owner)).body.result.queued).toBe(2);
    await p.getByRole('button', { name: 'Close' }).click();

    // nothing from a sender ran or became an element
    expect(await p.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBe(
      undefined,
    );
    expect(dialogs).toEqual([]);
    expect(await p.locator('#inspector img, #inspector script, #inspector b').count()).toBe(0);
  } finally {
    await close();
  }
}, 60_000);

/** Waits until the element's text is exactly `text`. */
async function waitForText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await locator.textContent())?.trim() === text) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect((await locator.textContent())?.trim()).toBe(text);
}

test('the dashboard line the embedded quick start prints opens a signed-in dashboard', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rq-first-hour-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    RELAY_DATA_DIR: dataDir,
    REDIS_SERVER_BIN: redisServerBinary(),
  });
  let printed = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  let running: RunningServer;
  try {
    running = await runServer(config, pino({ level: 'silent' }));
  } finally {
    process.stdout.write = write;
  }
  const context = await browser.newContext();
  try {
    // The one line a newcomer copies, as printed.
    const line = /^\s*(http:\/\/localhost:\d+\/dashboard\/#owner_token=\S+)$/m.exec(printed);
    expect(line).not.toBeNull();
    const p = await context.newPage();
    await p.goto(line![1]);
    await p.getByRole('heading', { name: 'Usage' }).waitFor();
    await p.getByText('account local', { exact: true }).waitFor();
    expect(new URL(p.url()).hash).toBe('');
  } finally {
    await context.close();
    await running.shutdown();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

/** Records what a page logs as an error and every request that failed or was refused. */
function watchForProblems(p: Page): string[] {
  const problems: string[] = [];
  p.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  p.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  p.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  p.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return problems;
}

test('a signed-in load logs no console error and no failed request; the icon is served', async () => {
  let problems: string[] = [];
  const { p, owner, close } = await signedInAs('quiet', (page) => {
    problems = watchForProblems(page);
  });
  try {
    // a load with the session cookie, then every section
    await p.reload({ waitUntil: 'networkidle' });
    await p.getByText('account quiet', { exact: true }).waitFor();
    await p.getByRole('button', { name: 'Tokens' }).click();
    await p.locator('#token-rows tr').first().waitFor();
    await api('POST', '/v1/relay/channels/inbox/messages', owner, { body: 1 });
    await p.getByRole('button', { name: 'Channels' }).click();
    await p.locator('#live.on').waitFor();
    await p.waitForLoadState('networkidle');
    expect(problems).toEqual([]);
    const icon = await p.evaluate(async () => {
      const link = document.querySelector('link[rel="icon"]') as HTMLLinkElement;
      const res = await fetch(link.href);
      return { href: link.getAttribute('href'), status: res.status, type: res.type };
    });
    expect(icon).toEqual({
      href: expect.stringMatching(/^\/dashboard\/assets\/favicon\.[0-9a-f]{12}\.ico$/),
      status: 200,
      type: 'basic',
    });
  } finally {
    await close();
  }
  // where browsers look for it on any page of the origin
  const favicon = await fetch(`${rq.app.baseUrl}/favicon.ico`);
  expect(favicon.status).toBe(200);
  expect(favicon.headers.get('content-type')).toBe('image/x-icon');
  const bytes = Buffer.from(await favicon.arrayBuffer());
  expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0])); // an ICO header
}, 60_000);

test('one pulled message is "1 message"; tokens are made with AWS credentials that SQS clients use', async () => {
  const { p, owner, close } = await signedInAs('initech');
  try {
    await api('POST', '/v1/relay/channels/single/messages', owner, {
      body: 'just one',
      content_type: 'text',
    });
    await p.getByRole('button', { name: 'Channels' }).click();
    await p.getByRole('button', { name: 'Open channel single' }).click();
    await p.getByRole('button', { name: 'Pull 5 messages' }).click();
    await p.getByText('Pulled 1 message; it is hidden for 30 s.', { exact: true }).waitFor();
    expect((await p.locator('#peeked li').textContent())?.endsWith('\njust one')).toBe(true);
    await p.getByRole('button', { name: 'Ack these' }).click();
    await p.getByText('Acknowledged 1 message.', { exact: true }).waitFor();

    await p.getByRole('button', { name: 'Tokens' }).click();
    await p.getByLabel('Token name').fill('sqs');
    await p.getByLabel('AWS credentials').check();
    await p.getByRole('button', { name: 'Create token' }).click();
    await p.getByLabel('New token').waitFor();
    const accessKeyId = await p.getByLabel('AWS access key id').inputValue();
    const secretAccessKey = await p.getByLabel('AWS secret access key').inputValue();
    expect(accessKeyId).toMatch(/^RQ[0-9a-f]{16}initech$/);
    expect(secretAccessKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await p.locator('#token-rows tr', { hasText: accessKeyId }).waitFor();
    await p.screenshot({ path: path.join(SHOTS, 'token-aws.png') });
    const sqs = new SQSClient({
      endpoint: `${rq.app.baseUrl}/sqs`,
      region: 'us-east-1',
      credentials: { accessKeyId, secretAccessKey },
    });
    try {
      const listed = await sqs.send(new ListQueuesCommand({}));
      expect(listed.QueueUrls).toEqual([`${rq.app.baseUrl}/sqs/initech/single`]);
    } finally {
      sqs.destroy();
    }
    // a token made without them shows none
    await p.getByLabel('Token name').fill('plain');
    await p.getByRole('button', { name: 'Create token' }).click();
    await p.locator('#token-rows tr', { hasText: 'plain' }).waitFor();
    expect(await p.getByLabel('AWS access key id').isVisible()).toBe(false);
  } finally {
    await close();
  }
}, 60_000);

test("another account's sign-in link never switches a signed-in page by itself", async () => {
  const { p, close } = await signedInAs('hooli');
  try {
    await rq.app.relay.relay.accounts.create('umbrella', 'free');
    const theirs = (await rq.app.relay.relay.tokens.issue('umbrella', { role: 'owner' })).token;
    const whoIsSignedIn = () =>
      p.evaluate(async () => (await (await fetch('/v1/account')).json()).result.id as string);
    await p.goto(signInLink(rq.app.baseUrl, theirs));
    const dialog = p.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      'This link signs in to account "umbrella". You are signed in to account "hooli".',
    );
    // the token is off the address bar before anything is decided
    expect(p.url()).toBe(`${rq.app.baseUrl}/dashboard/`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await p.getByText('Still signed in to account "hooli"; the link was not used.').waitFor();
    expect(await p.locator('#who').textContent()).toBe('account hooli');
    expect(await whoIsSignedIn()).toBe('hooli');
    // asked again and accepted: the switch is the user's
    await p.goto(signInLink(rq.app.baseUrl, theirs));
    await p.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await p.locator('#who', { hasText: 'account umbrella' }).waitFor();
    expect(await whoIsSignedIn()).toBe('umbrella');
  } finally {
    await close();
  }
}, 60_000);
