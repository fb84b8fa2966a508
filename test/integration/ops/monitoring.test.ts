/**
 * k8s/monitoring/: every metric name and label the alert rules and the Grafana
 * dashboard use exists on a running service's /metrics, so renaming a metric
 * or a label cannot silently break an alert or a panel. Also: the component
 * names its files, and the rules and panels have what Prometheus and Grafana need.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { accountWithToken } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';
import { relay } from '../../helpers/relayClient';
import { serve, type ServedApp } from './serve';

const DIR = path.resolve(__dirname, '../../../k8s/monitoring');
/** metrics the rules use that other exporters provide (Prometheus itself, kube-state-metrics) */
const EXTERNAL: Record<string, string[]> = {
  up: ['job', 'instance'],
  kube_pod_status_ready: ['namespace', 'pod', 'condition'],
};

interface Expr {
  where: string;
  expr: string;
  /** labels a panel legend names ({{label}}) */
  legend?: string;
}

function ruleExprs(): Expr[] {
  const rule = parseYaml(fs.readFileSync(path.join(DIR, 'prometheusrule.yaml'), 'utf8'));
  return rule.spec.groups.flatMap((g: { rules: { alert: string; expr: string }[] }) =>
    g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
  );
}

function dashboardExprs(): Expr[] {
  const dash = JSON.parse(fs.readFileSync(path.join(DIR, 'relayq-dashboard.json'), 'utf8'));
  return dash.panels.flatMap(
    (p: { title: string; targets: { expr: string; legendFormat: string }[] }) =>
      p.targets.map((t) => ({ where: `panel "${p.title}"`, expr: t.expr, legend: t.legendFormat })),
  );
}

/** metric family name -> label names seen on /metrics (and declared by the service's registry) */
type Families = Map<string, { type: string; labels: Set<string> }>;

function families(text: string, declared: Map<string, string[]>): Families {
  const out: Families = new Map();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    out.set(m[1], { type: m[2], labels: new Set(declared.get(m[1]) ?? []) });
  }
  for (const m of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} /gm)) {
    const family = out.get(m[1]) ?? out.get(m[1].replace(/_(bucket|count|sum)$/, ''));
    for (const pair of m[2].matchAll(/(\w+)="/g)) family?.labels.add(pair[1]);
  }
  return out;
}

/** Problems of one expression against the families: unknown metrics or labels. */
function check(e: Expr, fams: Families): string[] {
  const problems: string[] = [];
  const used = new Map<string, Set<string>>();
  const allLabels = new Set<string>();
  for (const m of e.expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*(\{[^}]*\})?/g)) {
    const name = m[1];
    const isMetric = name.startsWith('relayq_') || name in EXTERNAL;
    if (!isMetric) continue;
    let labels: Set<string>;
    if (name in EXTERNAL) {
      labels = new Set(EXTERNAL[name]);
    } else {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      const family = fams.get(name) ?? (base !== name ? fams.get(base) : undefined);
      if (!family || (base !== name && !fams.has(name) && family.type !== 'histogram')) {
        problems.push(`${e.where}: metric ${name} is not on /metrics`);
        used.set(name, new Set());
        continue;
      }
      labels = new Set(family.labels);
      if (name.endsWith('_bucket')) labels.add('le');
    }
    used.set(name, labels);
    for (const l of labels) allLabels.add(l);
    for (const pair of (m[2] ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)/g)) {
      if (!labels.has(pair[1])) problems.push(`${e.where}: ${name} has no label ${pair[1]}`);
    }
  }
  if (used.size === 0) problems.push(`${e.where}: uses no metric`);
  const grouped = [...e.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) =>
    m[1].split(',').map((s) => s.trim()),
  );
  const legend = [...(e.legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]);
  for (const label of [...grouped, ...legend]) {
    if (label && !allLabels.has(label)) problems.push(`${e.where}: no metric has label ${label}`);
  }
  return problems;
}

// declared first, so that the server shuts down before useRelay() stops the Redis
afterAll(() => served?.shutdown());
const rq = useRelay({ pods: 0, flush: false });
let served: ServedApp;
let metricsText = '';
let fams: Families;

beforeAll(async () => {
  served = await serve(rq.redis, { RELAY_METRICS_ACCOUNTS: 'acme', LOG_LEVEL: 'silent' });
  // Traffic, so that labelled series have samples.
  const { auth } = await accountWithToken(served.app, 'acme');
  const c = relay(served.app, auth);
  await c.sendOk('orders', { body: 1 });
  const pulled = await c.pullOk('orders');
  await c.ackOk('orders', { lease_ids: [pulled.messages[0].lease_id] });
  metricsText = await (await fetch(`${served.metricsUrl}/metrics`)).text();
  const declared = new Map<string, string[]>();
  for (const metric of served.running.relay.metrics.registry.getMetricsAsArray()) {
    const labelNames = (metric as unknown as { labelNames?: string[] }).labelNames ?? [];
    declared.set((metric as unknown as { name: string }).name, labelNames);
  }
  fams = families(metricsText, declared);
});

test('every metric and label of the alert rules is on /metrics', () => {
  const exprs = ruleExprs();
  expect(exprs.length).toBeGreaterThanOrEqual(9);
  expect(exprs.flatMap((e) => check(e, fams))).toEqual([]);
});

test('every metric and label of the Grafana dashboard is on /metrics', () => {
  const exprs = dashboardExprs();
  expect(exprs.length).toBeGreaterThanOrEqual(7);
  expect(exprs.flatMap((e) => check(e, fams))).toEqual([]);
});

test('the check catches a renamed metric, a renamed label and a wrong legend', () => {
  expect(check({ where: 'x', expr: 'max(relayq_message{state="queued"})' }, fams)).toEqual([
    'x: metric relayq_message is not on /metrics',
  ]);
  expect(check({ where: 'x', expr: 'max(relayq_messages{status="queued"})' }, fams)).toEqual([
    'x: relayq_messages has no label status',
  ]);
  expect(
    check({ where: 'x', expr: 'max by (kind) (relayq_messages)', legend: '{{state}}' }, fams),
  ).toEqual(['x: no metric has label kind']);
  expect(
    check({ where: 'x', expr: 'rate(relayq_websocket_connections_bucket[5m])' }, fams),
  ).toEqual(['x: metric relayq_websocket_connections_bucket is not on /metrics']);
});

test('the backlog gauges the alerts rely on have samples on /metrics', () => {
  for (const name of [
    'relayq_messages{state="queued"}',
    'relayq_dead_letter_messages ',
    'relayq_oldest_message_age_seconds ',
    'relayq_next_message_expiry_seconds ',
    'relayq_redis_memory_bytes{kind="used"}',
    'relayq_redis_memory_bytes{kind="max"}',
    'relayq_plan_retention_seconds{plan="free"}',
    'relayq_channel_messages{account="acme",channel="orders",state="queued"}',
  ]) {
    expect(metricsText).toContain(`\n${name}`);
  }
});

test('every alert has a severity, a summary and a duration; the component lists its files', () => {
  const rule = parseYaml(fs.readFileSync(path.join(DIR, 'prometheusrule.yaml'), 'utf8'));
  const alerts = rule.spec.groups.flatMap((g: { rules: unknown[] }) => g.rules) as {
    alert: string;
    for: string;
    labels: { severity: string };
    annotations: { summary: string };
  }[];
  expect(alerts.map((a) => a.alert)).toEqual(
    expect.arrayContaining([
      'RelayqBacklogGrowing',
      'RelayqOldestMessageOld',
      'RelayqMessagesAboutToExpire',
      'RelayqDeadLetterNotEmpty',
      'RelayqHighErrorRatio',
      'RelayqHighLatency',
      'RelayqRedisMemoryHigh',
      'RelayqPodNotReady',
      'RelayqScriptErrors',
    ]),
  );
  for (const a of alerts) {
    expect(['warning', 'critical']).toContain(a.labels.severity);
    expect(a.annotations.summary.length).toBeGreaterThan(10);
    expect(a.for).toMatch(/^\d+m$/);
  }
  const component = parseYaml(fs.readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8'));
  expect(component.kind).toBe('Component');
  const named = [
    ...component.resources,
    ...component.configMapGenerator.flatMap((g: { files: string[] }) => g.files),
  ].sort();
  expect(named).toEqual(
    fs
      .readdirSync(DIR)
      .filter((f) => f !== 'kustomization.yaml')
      .sort(),
  );
});
