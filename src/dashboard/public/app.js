// relayq dashboard: plain ES module, no build step. All data is written with
// textContent (never innerHTML). The owner token is sent once, to sign in; the
// session lives in an HttpOnly cookie; the CSRF token is kept in memory only.

const $ = (id) => document.getElementById(id);
let csrf = null;
let socket = null;
let socketChannels = '';
let refreshTimer = null;
let current = 'usage';
let selected = null;
let peeked = [];

function say(text, bad = false) {
  const el = $('status');
  el.textContent = text;
  el.classList.toggle('bad', bad);
}

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const envelope = await res.json().catch(() => null);
  if (!res.ok || !envelope || !envelope.success) {
    const message =
      envelope && envelope.errors && envelope.errors[0]
        ? envelope.errors[0].message
        : `HTTP ${res.status}`;
    const err = new Error(message);
    err.status = res.status;
    if (res.status === 401 && csrf) signedOut('Your session has ended. Sign in again.');
    throw err;
  }
  return envelope.result;
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// Decimal units, as the plans are written (10 MB = 10,000,000 bytes).
function bytes(n) {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

// "1 message", "3 messages"
function counted(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// A body as a person reads it: text as is (a webhook's payload too), JSON as JSON,
// bytes and v8 as the base64 the API carries them in.
function shownBody(m) {
  if (m.content_type === 'text') return m.body;
  if (m.content_type === 'json') return JSON.stringify(m.body);
  return `(${m.content_type}, base64) ${m.body}`;
}

function age(ms) {
  if (ms === null) return '—';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function confirmAction(text) {
  return new Promise((resolve) => {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
    $('confirm-ok').focus();
  });
}

function show(view) {
  if (view !== current) say('');
  current = view;
  for (const name of ['signin', 'usage', 'tokens', 'channels'])
    $(`view-${name}`).hidden = name !== view;
  for (const b of document.querySelectorAll('#nav button')) {
    if (b.dataset.view === view) b.setAttribute('aria-current', 'page');
    else b.removeAttribute('aria-current');
  }
  if (view === 'usage') loadUsage().catch((e) => say(e.message, true));
  if (view === 'tokens') loadTokens().catch((e) => say(e.message, true));
  if (view === 'channels') loadChannels().catch((e) => say(e.message, true));
}

function signedIn(session) {
  csrf = session.csrf_token;
  $('who').textContent = `account ${session.account}`;
  $('nav').hidden = false;
  $('sign-out').hidden = false;
  show('usage');
}

function signedOut(message = '') {
  csrf = null;
  if (socket) socket.close();
  socket = null;
  clearInterval(refreshTimer);
  $('who').textContent = '';
  $('nav').hidden = true;
  $('sign-out').hidden = true;
  show('signin');
  say(message);
  $('signin-token').focus();
}

async function loadUsage() {
  const account = await api('GET', '/v1/account');
  $('usage-account').textContent = account.id;
  $('usage-plan').textContent = account.plan;
  const storage = $('usage-storage');
  storage.max = account.limits.max_storage_bytes;
  storage.value = account.usage.storage_bytes;
  storage.high = account.limits.max_storage_bytes * 0.8;
  $('usage-storage-text').textContent =
    `${bytes(account.usage.storage_bytes)} of ${bytes(account.limits.max_storage_bytes)}`;
  const channels = $('usage-channels');
  channels.max = account.limits.max_channels;
  channels.value = account.usage.channels;
  channels.high = account.limits.max_channels * 0.8;
  $('usage-channels-text').textContent =
    `${account.usage.channels} of ${account.limits.max_channels} channels`;
  $('usage-retention').textContent =
    `Messages are kept for up to ${Math.round(account.limits.retention_seconds / 86400)} days.`;
}

async function loadTokens() {
  const { tokens } = await api('GET', '/v1/account/tokens');
  const rows = $('token-rows');
  rows.replaceChildren();
  for (const t of tokens) {
    const tr = el('tr');
    tr.append(
      el('td', t.name ?? '(unnamed)'),
      el('td', t.id, { class: 'mono' }),
      el('td', t.role),
      el('td', t.channels ? t.channels.join(', ') : 'all'),
      el('td', t.expires_ms ? new Date(t.expires_ms).toLocaleString() : 'never'),
      el('td', t.aws_access_key_id ?? '—', { class: 'mono' }),
    );
    const td = el('td');
    const revoke = el('button', 'Revoke', {
      type: 'button',
      class: 'danger',
      'aria-label': `Revoke token ${t.name ?? t.id}`,
    });
    revoke.addEventListener('click', async () => {
      if (
        !(await confirmAction(
          `Revoke token "${t.name ?? t.id}"? Programs using it stop working at once.`,
        ))
      )
        return;
      await api('DELETE', `/v1/account/tokens/${t.id}`).catch((e) => say(e.message, true));
      say('Token revoked.');
      loadTokens().catch((e) => say(e.message, true));
    });
    td.append(revoke);
    tr.append(td);
    rows.append(tr);
  }
}

function renderChannels(channels) {
  const rows = $('channel-rows');
  rows.replaceChildren();
  for (const c of channels) {
    const tr = el('tr', undefined, { 'data-channel': c.id });
    tr.append(
      el('td', c.id),
      el('td', c.queued, { 'data-field': 'queued' }),
      el('td', c.delayed, { 'data-field': 'delayed' }),
      el('td', c.in_flight, { 'data-field': 'in_flight' }),
      // message groups (docs/api/groups.md): holding a message / head in flight or awaiting a retry
      el('td', c.groups ?? 0, { 'data-field': 'groups' }),
      el('td', c.blocked_groups ?? 0, { 'data-field': 'blocked_groups' }),
      el('td', c.config.dead_letter_channel ?? '—'),
      el('td', age(c.oldest_message_ms)),
      el('td', c.config.paused ? 'paused' : 'on', { 'data-field': 'delivery' }),
    );
    const td = el('td');
    const open = el('button', 'Open', {
      type: 'button',
      class: 'secondary',
      'aria-label': `Open channel ${c.id}`,
    });
    open.addEventListener('click', () => openChannel(c));
    const pause = el('button', c.config.paused ? 'Resume' : 'Pause', {
      type: 'button',
      class: 'secondary',
      'aria-label': `${c.config.paused ? 'Resume' : 'Pause'} delivery from channel ${c.id}`,
    });
    pause.addEventListener('click', async () => {
      const r = await api('PUT', `/v1/relay/channels/${encodeURIComponent(c.id)}`, {
        paused: !c.config.paused,
      }).catch((e) => say(e.message, true));
      if (r) say(r.config.paused ? `Paused delivery from ${c.id}.` : `Resumed ${c.id}.`);
      if (r && $('cfg-channel').value === c.id) $('cfg-paused').checked = r.config.paused;
      loadChannels();
    });
    const purge = el('button', 'Purge', {
      type: 'button',
      class: 'secondary',
      'aria-label': `Purge channel ${c.id}`,
    });
    purge.addEventListener('click', async () => {
      if (!(await confirmAction(`Purge every message of "${c.id}"?`))) return;
      const r = await api('POST', `/v1/relay/channels/${c.id}/messages/purge`, {}).catch((e) =>
        say(e.message, true),
      );
      if (r) say(`Purged ${counted(r.purged_count, 'message')} from ${c.id}.`);
      loadChannels();
    });
    const del = el('button', 'Delete', {
      type: 'button',
      class: 'danger',
      'aria-label': `Delete channel ${c.id}`,
    });
    del.addEventListener('click', async () => {
      if (!(await confirmAction(`Delete channel "${c.id}" and all its messages?`))) return;
      const r = await api('DELETE', `/v1/relay/channels/${c.id}`).catch((e) =>
        say(e.message, true),
      );
      if (r) say(`Deleted ${c.id} (${counted(r.deleted_count, 'message')}).`);
      if (selected === c.id) $('channel-detail').hidden = true;
      loadChannels();
    });
    const inspect = el('button', 'Inspector', {
      type: 'button',
      class: 'secondary',
      'aria-label': `Inspector of channel ${c.id}`,
    });
    inspect.addEventListener('click', () => openInspector(c.id));
    td.append(open, ' ', inspect, ' ', pause, ' ', purge, ' ', del);
    tr.append(td);
    rows.append(tr);
  }
}

// The list has the counts; each channel's own entry adds its configuration.
async function fetchChannels() {
  const { channels } = await api('GET', '/v1/relay/channels');
  return Promise.all(
    channels.map((c) => api('GET', `/v1/relay/channels/${encodeURIComponent(c.id)}`)),
  );
}

async function loadChannels() {
  const channels = await fetchChannels();
  renderChannels(channels);
  watch(channels.map((c) => c.id));
  clearInterval(refreshTimer);
  refreshTimer = setInterval(() => {
    if (current === 'channels')
      fetchChannels()
        .then(renderChannels)
        .catch(() => {});
    if (current === 'channels' && selected && !$('channel-detail').hidden)
      loadDestination().catch(() => {});
  }, 5000);
}

// Live counts: the WebSocket tells us when messages arrive; the page then reloads the list.
function watch(ids) {
  const list = ids.join(',');
  if (socket && socketChannels === list) return;
  if (socket) socket.close();
  socket = null;
  socketChannels = list;
  $('live').classList.remove('on');
  if (ids.length === 0) return;
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(
    `${proto}://${location.host}/v1/relay/subscribe?channels=${encodeURIComponent(list)}`,
  );
  socket = ws;
  ws.addEventListener('open', () => $('live').classList.add('on'));
  ws.addEventListener('close', () => $('live').classList.remove('on'));
  ws.addEventListener('message', (event) => {
    const data = JSON.parse(event.data);
    if (data.type === 'new_message' && current === 'channels') {
      fetchChannels()
        .then(renderChannels)
        .catch(() => {});
    }
  });
}

function openChannel(c) {
  selected = c.id;
  peeked = [];
  $('peeked').replaceChildren();
  $('ack-peeked').hidden = true;
  $('release-peeked').hidden = true;
  $('detail-title').textContent = `Channel ${c.id}`;
  $('channel-detail').hidden = false;
  $('cfg-channel').value = c.id;
  $('cfg-dlq').value = c.config.dead_letter_channel ?? '';
  $('cfg-attempts').value = c.config.max_attempts;
  $('cfg-visibility').value = c.config.visibility_timeout_ms;
  $('cfg-delay').value = c.config.delay_seconds;
  $('cfg-retention').value = c.config.retention_seconds;
  $('cfg-paused').checked = c.config.paused;
  $('webhook-created').hidden = true;
  $('dst-secret').hidden = true;
  loadWebhooks().catch((e) => say(e.message, true));
  loadRoutes().catch((e) => say(e.message, true));
  $('routes-test-result').textContent = '';
  loadDestination().catch((e) => say(e.message, true));
  $('send-body').focus();
}

const routesPath = () => `/v1/relay/channels/${encodeURIComponent(selected)}/routes`;

async function loadRoutes() {
  const routes = await api('GET', routesPath());
  $('routes-json').value = JSON.stringify(routes, null, 2);
}

$('routes-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  let routes;
  try {
    routes = JSON.parse($('routes-json').value);
  } catch (err) {
    say(`Routes are not JSON: ${err.message}`, true);
    return;
  }
  try {
    const stored = await api('PUT', routesPath(), routes);
    $('routes-json').value = JSON.stringify(stored, null, 2);
    say('Routes saved: every later message is routed by them.');
  } catch (err) {
    say(err.message, true);
  }
});

$('routes-remove').addEventListener('click', async () => {
  if (!(await confirmAction(`Remove the routes of ${selected}? Later messages stay in it.`)))
    return;
  try {
    await api('DELETE', routesPath());
    say('Routes removed.');
  } catch (err) {
    say(err.message, true);
  }
  loadRoutes().catch((e) => say(e.message, true));
});

$('routes-test-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  let message;
  try {
    message = JSON.parse($('routes-test-message').value);
  } catch (err) {
    say(`The message is not JSON: ${err.message}`, true);
    return;
  }
  const { body, content_type, metadata } = message ?? {};
  try {
    const [result, routes] = await Promise.all([
      api('POST', `${routesPath()}/test`, { message: { body, content_type, metadata } }),
      api('GET', routesPath()),
    ]);
    const lines = routes.routes.map(
      (r, i) => `[${i}] -> ${r.to}: ${result.matched.includes(i) ? 'matches' : 'no match'}`,
    );
    lines.push(
      `copies: ${result.channels.length === 0 ? 'none (dropped)' : result.channels.join(', ')}`,
    );
    $('routes-test-result').textContent = lines.join('\n');
  } catch (err) {
    say(err.message, true);
  }
});

const hooksPath = () => `/v1/relay/channels/${encodeURIComponent(selected)}/webhooks`;

function describeVerify(v) {
  if (!v) return 'none';
  return `${v.scheme}${v.on_failure === 'record' ? ' (record failures)' : ''}`;
}

async function loadWebhooks() {
  const { webhooks } = await api('GET', hooksPath());
  const rows = $('webhook-rows');
  rows.replaceChildren();
  for (const w of webhooks) {
    const tr = el('tr', undefined, { 'data-webhook': w.id });
    tr.append(
      el('td', w.label ?? '(unlabelled)'),
      el('td', w.id, { class: 'mono' }),
      el('td', describeVerify(w.verify)),
      el('td', w.received_count),
      el('td', w.last_received_at === null ? 'never' : `${age(w.last_received_at)} ago`),
      el(
        'td',
        w.last_refusal === null
          ? 'none'
          : `${age(w.last_refusal.at)} ago: ${w.last_refusal.reason}`,
        { 'data-refusal': '' },
      ),
    );
    const td = el('td');
    const remove = el('button', 'Delete', {
      type: 'button',
      class: 'danger',
      'aria-label': `Delete webhook ${w.label ?? w.id}`,
    });
    remove.addEventListener('click', async () => {
      const name = w.label ?? w.id;
      if (!(await confirmAction(`Delete webhook "${name}"? Its URL stops working at once.`)))
        return;
      try {
        await api('DELETE', `${hooksPath()}/${w.id}`);
        say('Webhook deleted.');
      } catch (err) {
        say(err.message, true);
      }
      loadWebhooks().catch((e) => say(e.message, true));
    });
    td.append(remove);
    tr.append(td);
    rows.append(tr);
  }
}

// The channel's push destination (docs/api/destinations.md): its state, its last attempts,
// pause/resume (or re-enable), retry now (its dead messages back), rotate secret; and the
// channel's dead messages with their redrive.
const channelPath = () => `/v1/relay/channels/${encodeURIComponent(selected)}`;
let destination = null;

function when(ms) {
  return ms === null ? 'never' : `${age(ms)} ago (${new Date(ms).toLocaleString()})`;
}

function describeState(d) {
  if (d.state === 'disabled') return `disabled: ${d.disabled_reason ?? 'unknown reason'}`;
  if (d.circuit_open_until)
    return `${d.state}, circuit open after ${d.consecutive_failures} failures`;
  return d.consecutive_failures > 0
    ? `${d.state}, ${counted(d.consecutive_failures, 'failure')} in a row`
    : d.state;
}

async function loadDestination() {
  const channel = selected;
  const view = await api('GET', channelPath()).catch((e) =>
    e.status === 404 ? null : Promise.reject(e),
  );
  if (channel !== selected) return;
  $('dead-count').textContent = String(view ? (view.dead_count ?? 0) : 0);
  $('redrive-dead').disabled = !view || !view.dead_count;
  const { destinations } = view
    ? await api('GET', `${channelPath()}/destinations`)
    : { destinations: [] };
  if (channel !== selected) return;
  $('destination-none').hidden = destinations.length > 0;
  $('destination').hidden = destinations.length === 0;
  if (destinations.length === 0) {
    destination = null;
    return;
  }
  const d = await api('GET', `${channelPath()}/destinations/${destinations[0].id}`);
  const { attempts } = await api(
    'GET',
    `${channelPath()}/destinations/${destinations[0].id}/attempts?limit=20`,
  );
  if (channel !== selected) return;
  destination = d;
  $('dst-url').textContent = d.url;
  $('dst-state').textContent = describeState(d);
  $('dst-success').textContent = when(d.last_success_at);
  $('dst-failure').textContent =
    d.last_failure_at === null ? 'never' : `${when(d.last_failure_at)}: ${d.last_failure}`;
  const pause = $('dst-pause');
  pause.textContent =
    d.state === 'active' ? 'Pause' : d.state === 'paused' ? 'Resume' : 'Re-enable';
  pause.setAttribute('aria-label', `${pause.textContent} the push destination`);
  $('dst-retry').disabled = d.dead_count === 0;
  const rows = $('attempt-rows');
  rows.replaceChildren();
  for (const a of attempts) {
    const tr = el('tr');
    tr.append(
      el('td', new Date(a.started_at).toLocaleTimeString()),
      el('td', a.message_id, { class: 'mono' }),
      el('td', a.attempt),
      el('td', a.status === null ? '—' : a.status, { 'data-field': 'status' }),
      el('td', `${a.duration_ms} ms`, { 'data-field': 'duration' }),
      el('td', a.error ?? a.response_excerpt.slice(0, 200)),
    );
    rows.append(tr);
  }
}

async function destinationAction(change, done) {
  try {
    const r = await api('PATCH', `${channelPath()}/destinations/${destination.id}`, change);
    say(done(r));
  } catch (err) {
    say(err.message, true);
  }
  loadDestination().catch((e) => say(e.message, true));
}

$('dst-pause').addEventListener('click', () => {
  if (!destination) return;
  if (destination.state === 'active')
    destinationAction(
      { paused: true },
      () => 'Paused the push destination: messages wait in the channel.',
    );
  else if (destination.state === 'paused')
    destinationAction({ paused: false }, () => 'Resumed the push destination.');
  else destinationAction({ state: 'active' }, () => 'Re-enabled the push destination.');
});

$('dst-rotate').addEventListener('click', async () => {
  if (!destination) return;
  if (!(await confirmAction('Rotate the signing secret? The previous one still signs for 24 h.')))
    return;
  destinationAction({ rotate_secret: true }, (r) => {
    $('dst-secret-value').value = r.secret;
    $('dst-secret').hidden = false;
    $('dst-secret-value').select();
    return 'Signing secret rotated.';
  });
});

async function redrive(path, what) {
  try {
    const r = await api('POST', path, {});
    say(`${what}: ${counted(r.moved_count, 'message')} available again.`);
  } catch (err) {
    say(err.message, true);
  }
  loadDestination().catch((e) => say(e.message, true));
}

$('dst-retry').addEventListener('click', () => {
  if (destination)
    redrive(`${channelPath()}/destinations/${destination.id}/redrive`, 'Retrying now');
});
$('redrive-dead').addEventListener('click', () => redrive(`${channelPath()}/redrive`, 'Redriven'));
copyButton('dst-secret-copy', 'dst-secret-value', 'Signing secret', 'secret');

$('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('signin-error').textContent = '';
  try {
    const session = await api('POST', '/dashboard/api/session', {
      token: $('signin-token').value.trim(),
    });
    $('signin-token').value = '';
    signedIn(session);
  } catch (err) {
    $('signin-error').textContent = err.message;
  }
});

$('sign-out').addEventListener('click', async () => {
  await api('DELETE', '/dashboard/api/session').catch(() => {});
  signedOut('Signed out.');
});

for (const b of document.querySelectorAll('#nav button'))
  b.addEventListener('click', () => show(b.dataset.view));

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = {};
  const name = $('token-name').value.trim();
  const channels = $('token-channels')
    .value.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const expiry = $('token-expiry').value;
  if (name) body.name = name;
  if (channels.length) body.channels = channels;
  if (expiry) body.expires_in_seconds = Number(expiry);
  body.role = $('token-role').value;
  if ($('token-aws').checked) body.aws_credentials = true;
  try {
    const created = await api('POST', '/v1/account/tokens', body);
    $('token-created-value').value = created.token;
    const aws = Boolean(created.aws_access_key_id);
    for (const node of document.querySelectorAll('.aws-only')) node.hidden = !aws;
    $('token-aws-id').value = aws ? created.aws_access_key_id : '';
    $('token-aws-secret').value = aws ? created.aws_secret_access_key : '';
    $('token-created').hidden = false;
    $('token-created-value').focus();
    $('token-created-value').select();
    say('Token created.');
    event.target.reset();
    loadTokens();
  } catch (err) {
    say(err.message, true);
  }
});

// A value shown once, with a Copy button (falls back to selecting it).
function copyButton(buttonId, inputId, what, noun) {
  $(buttonId).addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($(inputId).value);
      say(`${what} copied to the clipboard.`);
    } catch {
      $(inputId).select();
      say(`Press Ctrl+C to copy the selected ${noun}.`);
    }
  });
}
copyButton('token-copy', 'token-created-value', 'Token', 'token');
copyButton('token-aws-secret-copy', 'token-aws-secret', 'AWS secret access key', 'key');
copyButton('webhook-copy', 'webhook-created-value', 'Webhook URL', 'URL');

$('configure-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const channel = $('cfg-channel').value.trim();
  const dlq = $('cfg-dlq').value.trim();
  try {
    // An empty setting resets it to its default (null).
    const setting = (id) => ($(id).value.trim() === '' ? null : Number($(id).value));
    await api('PUT', `/v1/relay/channels/${encodeURIComponent(channel)}`, {
      dead_letter_channel: dlq === '' ? null : dlq,
      max_attempts: Number($('cfg-attempts').value),
      visibility_timeout_ms: setting('cfg-visibility'),
      delay_seconds: setting('cfg-delay'),
      retention_seconds: setting('cfg-retention'),
      paused: $('cfg-paused').checked,
    });
    say(`Saved the configuration of ${channel}.`);
    loadChannels();
  } catch (err) {
    say(err.message, true);
  }
});

$('hook-scheme').addEventListener('change', () => {
  const scheme = $('hook-scheme').value;
  $('hook-secret').disabled = scheme === '';
  $('hook-failure').disabled = scheme === '';
  $('hook-secret').required = scheme !== '';
  for (const node of document.querySelectorAll('.hmac-only'))
    node.hidden = scheme !== 'hmac-sha256';
  $('hook-header').required = scheme === 'hmac-sha256';
});

$('webhook-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = {};
  const label = $('hook-label').value.trim();
  if (label) body.label = label;
  const scheme = $('hook-scheme').value;
  if (scheme) {
    body.verify = { scheme, secret: $('hook-secret').value, on_failure: $('hook-failure').value };
    if (scheme === 'hmac-sha256') {
      body.verify.header = $('hook-header').value.trim();
      body.verify.encoding = $('hook-encoding').value;
      body.verify.prefix = $('hook-prefix').value;
    }
  }
  try {
    const created = await api('POST', hooksPath(), body);
    $('webhook-created-value').value = created.url;
    $('webhook-created').hidden = false;
    $('webhook-created-value').focus();
    $('webhook-created-value').select();
    say('Webhook URL created.');
    event.target.reset();
    $('hook-scheme').dispatchEvent(new Event('change'));
    loadWebhooks().catch((e) => say(e.message, true));
  } catch (err) {
    say(err.message, true);
  }
});

$('send-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  let body;
  try {
    body = JSON.parse($('send-body').value);
  } catch {
    say('The test message body must be valid JSON.', true);
    return;
  }
  try {
    const r = await api('POST', `/v1/relay/channels/${encodeURIComponent(selected)}/messages`, {
      body,
    });
    say(`Sent message ${r.id} to ${selected}.`);
  } catch (err) {
    say(err.message, true);
  }
});

$('peek').addEventListener('click', async () => {
  try {
    const r = await api(
      'POST',
      `/v1/relay/channels/${encodeURIComponent(selected)}/messages/pull`,
      {
        batch_size: 5,
        visibility_timeout_ms: 30000,
      },
    );
    peeked = r.messages;
    const list = $('peeked');
    list.replaceChildren();
    for (const m of r.messages) {
      list.append(
        el(
          'li',
          `${m.id} · ${m.content_type} · attempts ${m.attempts} · metadata ${JSON.stringify(m.metadata)}\n${shownBody(m)}`,
        ),
      );
    }
    $('ack-peeked').hidden = peeked.length === 0;
    $('release-peeked').hidden = peeked.length === 0;
    say(
      peeked.length
        ? `Pulled ${counted(peeked.length, 'message')}; ${peeked.length === 1 ? 'it is' : 'they are'} hidden for 30 s.`
        : 'No messages available.',
    );
  } catch (err) {
    say(err.message, true);
  }
});

$('ack-peeked').addEventListener('click', async () => {
  const r = await api('POST', `/v1/relay/channels/${encodeURIComponent(selected)}/messages/ack`, {
    lease_ids: peeked.map((m) => m.lease_id),
  }).catch((e) => say(e.message, true));
  if (r) say(`Acknowledged ${counted(r.acked_count, 'message')}.`);
  peeked = [];
  $('peeked').replaceChildren();
  $('ack-peeked').hidden = true;
  $('release-peeked').hidden = true;
  loadChannels();
});

$('release-peeked').addEventListener('click', () => {
  peeked = [];
  $('peeked').replaceChildren();
  $('ack-peeked').hidden = true;
  $('release-peeked').hidden = true;
  say('The messages will return to the queue when their 30 s lease ends.');
});

// The quick start's sign-in link carries the owner token in the fragment (never sent
// in a request): it is taken off the address bar at once and exchanged for a session. A
// signed-in page never switches accounts on a link's word alone (a link can be crafted
// with another account's token): it keeps the session, or asks first.
/** The fragment's owner token, taken off the address bar at once (null when none). */
function takeLinkToken() {
  const token = new URLSearchParams(location.hash.slice(1)).get('owner_token');
  if (token) history.replaceState(null, '', location.pathname + location.search);
  return token;
}
const linkToken = takeLinkToken();

function signInWithLink(token, switchAccount = false) {
  return api('POST', '/dashboard/api/session', { token, switch: switchAccount })
    .then(signedIn)
    .catch(async (err) => {
      // 409: this page is signed in to another account; the server switches only when asked
      if (err.status === 409 && !switchAccount) return askToSwitch(token, err.message);
      signedOut();
      $('signin-error').textContent = err.message;
    });
}

async function askToSwitch(token, why) {
  const session = await api('GET', '/dashboard/api/session');
  signedIn(session);
  const theirs = (/this token is of account (\S+):/.exec(why) ?? [])[1] ?? 'another account';
  const yes = await confirmAction(
    `This link signs in to account "${theirs}". You are signed in to account "${session.account}". Switch to "${theirs}"?`,
  );
  if (yes) await signInWithLink(token, true);
  else say(`Still signed in to account "${session.account}"; the link was not used.`);
}

// a link opened in a tab already showing the dashboard changes only the fragment: no reload
window.addEventListener('hashchange', () => {
  const token = takeLinkToken();
  if (token) signInWithLink(token);
});

if (linkToken) {
  signInWithLink(linkToken);
} else {
  api('GET', '/dashboard/api/session')
    .then(signedIn)
    .catch(() => signedOut());
}

// --- Inspector: the channel's history (docs/api/history.md). Every value from a message
// (body, headers, query, metadata) is written with textContent: no sender's HTML ever runs.
let inspected = null;
let inspectorCursor = null;
let bulkJob = null;
let bulkTimer = null;

const historyPath = (suffix = '') =>
  `/v1/relay/channels/${encodeURIComponent(inspected)}/history${suffix}`;

function selection() {
  const out = {};
  if ($('insp-status').value) out.status = $('insp-status').value;
  if ($('insp-since').value.trim()) out.since = $('insp-since').value.trim();
  if ($('insp-until').value.trim()) out.until = $('insp-until').value.trim();
  if ($('insp-filter').value.trim()) out.filter = $('insp-filter').value.trim();
  return out;
}

function openInspector(channel) {
  inspected = channel;
  $('inspector-title').textContent = `Inspector: ${channel}`;
  $('inspector').hidden = false;
  $('insp-detail').hidden = true;
  searchHistory(false).catch((e) => say(e.message, true));
}

async function searchHistory(more) {
  const params = new URLSearchParams(selection());
  params.set('limit', '50');
  if (more && inspectorCursor) params.set('cursor', inspectorCursor);
  const page = await api('GET', `${historyPath()}?${params}`);
  if (!more) $('insp-rows').replaceChildren();
  for (const item of page.items) {
    const tr = el('tr');
    const open = el('button', new Date(item.received_at).toISOString(), {
      type: 'button',
      class: 'link',
      'aria-label': `Show message ${item.id}`,
    });
    open.addEventListener('click', () => showRecord(item.id).catch((e) => say(e.message, true)));
    const when = el('td');
    when.append(open);
    tr.append(when, el('td', item.status), el('td', item.attempts), el('td', item.entrance));
    tr.append(el('td', item.group_id ?? '-'), el('td', item.preview));
    $('insp-rows').append(tr);
  }
  inspectorCursor = page.next_cursor;
  $('insp-more').hidden = page.next_cursor === null;
  if (!more && page.items.length === 0) say('No messages in this history match.');
}

function prettyBody(record) {
  if (record.content_type === 'json') return JSON.stringify(record.body, null, 2);
  if (record.content_type === 'text') {
    try {
      return JSON.stringify(JSON.parse(record.body), null, 2);
    } catch {
      return String(record.body);
    }
  }
  return `${record.content_type} (base64): ${record.body}`;
}

async function showRecord(id) {
  const r = await api('GET', historyPath(`/${encodeURIComponent(id)}`));
  $('insp-detail').hidden = false;
  $('insp-detail').dataset.id = r.id;
  $('insp-detail-title').textContent = `${r.id}: ${r.status}, ${counted(r.attempts, 'attempt')}${
    r.group_id ? `, group ${r.group_id}` : ''
  }`;
  const hook = r.webhook;
  $('insp-verdict').textContent = hook
    ? `Webhook ${hook.method} ${hook.query ? `?${hook.query}` : ''} — signature ${
        hook.verified === null ? 'not checked' : hook.verified ? 'verified' : 'NOT verified'
      }`
    : `Received through ${r.entrance}`;
  const headers = $('insp-headers');
  headers.replaceChildren();
  for (const [name, value] of Object.entries(hook ? hook.headers : {})) {
    const tr = el('tr');
    tr.append(el('th', name), el('td', value));
    headers.append(tr);
  }
  const timeline = $('insp-timeline');
  timeline.replaceChildren();
  for (const t of r.timeline) {
    const { type, at, ...rest } = t;
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    timeline.append(el('li', `${new Date(at).toISOString()} ${type} ${extra}`));
  }
  $('insp-body').textContent = prettyBody(r);
}

$('inspector-search').addEventListener('submit', (event) => {
  event.preventDefault();
  searchHistory(false).catch((e) => say(e.message, true));
});
$('insp-more').addEventListener('click', () =>
  searchHistory(true).catch((e) => say(e.message, true)),
);
$('insp-replay').addEventListener('click', async () => {
  const id = $('insp-detail').dataset.id;
  const to = $('insp-to').value.trim();
  const r = await api(
    'POST',
    historyPath(`/${encodeURIComponent(id)}/replay`),
    to ? { to } : {},
  ).catch((e) => say(e.message, true));
  if (r) say(`Replayed as ${r.id}.`);
});

function jobBody(dryRun) {
  const s = selection();
  const body = { since: s.since ?? 0, dry_run: dryRun };
  if (s.until) body.until = s.until;
  if (s.status) body.status = s.status;
  if (s.filter) body.filter = JSON.parse(s.filter);
  const to = $('bulk-to').value.trim();
  if (to) body.to = to;
  body.rate_per_second = Number($('bulk-rate').value) || 100;
  return body;
}

function showJob(job) {
  $('bulk-progress').hidden = false;
  $('bulk-progress').max = Math.max(job.matched, 1);
  $('bulk-progress').value = job.replayed;
  $('bulk-state').textContent = `${job.state}: ${job.replayed} of ${job.matched} replayed`;
  const ended = ['done', 'cancelled', 'failed'].includes(job.state);
  $('bulk-cancel').hidden = ended;
  if (ended) clearInterval(bulkTimer);
}

$('insp-bulk').addEventListener('click', async () => {
  $('bulk-progress').hidden = true;
  $('bulk-state').textContent = '';
  $('bulk-cancel').hidden = true;
  $('bulk-start').hidden = false;
  $('bulk-count').textContent = 'Counting…';
  $('bulk').showModal();
  const dry = await api(
    'POST',
    `/v1/relay/channels/${encodeURIComponent(inspected)}/replays`,
    jobBody(true),
  ).catch((e) => {
    $('bulk-count').textContent = e.message;
    return null;
  });
  if (dry) $('bulk-count').textContent = `${counted(dry.matched, 'message')} match.`;
});

$('bulk-start').addEventListener('click', async () => {
  const path = `/v1/relay/channels/${encodeURIComponent(inspected)}/replays`;
  bulkJob = await api('POST', path, jobBody(false)).catch((e) => {
    $('bulk-state').textContent = e.message;
    return null;
  });
  if (!bulkJob) return;
  $('bulk-start').hidden = true;
  showJob(bulkJob);
  clearInterval(bulkTimer);
  bulkTimer = setInterval(async () => {
    const job = await api('GET', `${path}/${bulkJob.id}`).catch(() => null);
    if (job) showJob(job);
  }, 500);
});

$('bulk-cancel').addEventListener('click', async () => {
  const path = `/v1/relay/channels/${encodeURIComponent(inspected)}/replays/${bulkJob.id}`;
  const job = await api('DELETE', path).catch((e) => say(e.message, true));
  if (job) showJob(job);
});
