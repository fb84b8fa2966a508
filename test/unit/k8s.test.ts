/**
 * The Kubernetes manifests and the Dockerfile: every manifest parses and
 * validates against the Kubernetes schemas (kubernetes-models), every
 * kustomization names files that exist, and probes, ports, env names and the
 * start command agree with what the code reads and serves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config';
import { SETTINGS } from '../../src/config/settings';

const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'k8s');

// parsed YAML: shapes are checked by the schema validation below
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

interface Manifest {
  file: string;
  doc: Doc;
}

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? yamlFiles(path.join(dir, entry.name))
        : /\.ya?ml$/.test(entry.name)
          ? [path.join(dir, entry.name)]
          : [],
    );
}

function parse(file: string): Doc[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
    return doc.toJS();
  });
}

const files = yamlFiles(K8S);
const all: Manifest[] = files.flatMap((file) => parse(file).map((doc) => ({ file, doc })));
/** kustomizations and components (k8s/monitoring/ is an optional component) */
const kustomizations = all.filter((m) => ['Kustomization', 'Component'].includes(m.doc.kind));
/** Prometheus Operator objects: checked against /metrics by test/integration/ops/monitoring.test.ts */
const MONITORING_KINDS = new Set(['PrometheusRule', 'ServiceMonitor']);
/** the patch files of kustomizations: partial objects, not validated as whole ones */
const patchFiles = new Set(
  kustomizations.flatMap((k) =>
    (k.doc.patches ?? []).map((p: { path: string }) => path.resolve(path.dirname(k.file), p.path)),
  ),
);
const objects = all.filter(
  (m) =>
    !['Kustomization', 'Component'].includes(m.doc.kind) &&
    !MONITORING_KINDS.has(m.doc.kind) &&
    !patchFiles.has(m.file),
);
const find = (kind: string, name: string) => {
  const found = objects.find((m) => m.doc.kind === kind && m.doc.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in k8s/`);
  return found.doc;
};

/** Every variable name the config module reads (each setting's declaration). */
function configEnvNames(): Set<string> {
  return new Set(Object.values(SETTINGS).map((setting) => setting.env));
}

const MODELS: Record<string, string> = {
  'v1/Namespace': 'kubernetes-models/v1/Namespace',
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Secret': 'kubernetes-models/v1/Secret',
  'v1/Service': 'kubernetes-models/v1/Service',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'apps/v1/StatefulSet': 'kubernetes-models/apps/v1/StatefulSet',
  'autoscaling/v2/HorizontalPodAutoscaler':
    'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress',
};

describe('every manifest', () => {
  test('there are manifests of each expected kind', () => {
    const kinds = new Set(objects.map((m) => m.doc.kind));
    for (const kind of [
      'Namespace',
      'ConfigMap',
      'Secret',
      'Deployment',
      'Service',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Ingress',
      'StatefulSet',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  test.each(objects.map((m) => [`${path.relative(ROOT, m.file)} ${m.doc.kind}`, m]))(
    '%s validates against the Kubernetes schema',
    (_name, manifest) => {
      const { doc } = manifest as Manifest;
      const model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(model).toBeDefined();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const exported = require(model) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = exported[doc.kind];
      expect(() => new Model(doc).validate()).not.toThrow();
      expect(doc.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    },
  );

  test('the schema check does catch a broken manifest', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Deployment } = require('kubernetes-models/apps/v1/Deployment');
    const broken = structuredClone(find('Deployment', 'relayq'));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort/);
  });

  test('every kustomization names files and folders that exist', () => {
    for (const k of kustomizations) {
      const dir = path.dirname(k.file);
      const refs = [
        ...(k.doc.resources ?? []),
        ...(k.doc.patches ?? []).map((p: { path: string }) => p.path),
      ];
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const target = path.resolve(dir, ref);
        expect(fs.existsSync(target)).toBe(true);
        if (fs.statSync(target).isDirectory()) {
          expect(fs.existsSync(path.join(target, 'kustomization.yaml'))).toBe(true);
        }
      }
    }
    // every manifest of app/ and redis/ is part of the root kustomization
    for (const sub of ['app', 'redis']) {
      const k = kustomizations.find((m) => m.file === path.join(K8S, sub, 'kustomization.yaml'))!;
      const listed = new Set(k.doc.resources);
      for (const file of fs.readdirSync(path.join(K8S, sub))) {
        if (file !== 'kustomization.yaml') expect(listed).toContain(file);
      }
    }
  });
});

describe('the relay Deployment', () => {
  const deployment = find('Deployment', 'relayq');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const configMap = find('ConfigMap', 'relayq-config');
  const secret = find('Secret', 'relayq-secrets');
  const envNames = [
    ...Object.keys(configMap.data),
    ...Object.keys(secret.stringData),
    ...(container.env ?? []).map((e: { name: string }) => e.name),
  ];
  const settings = { ...configMap.data, ...secret.stringData };

  test('runs 3 replicas whose selector matches the pod labels', () => {
    expect(deployment.spec.replicas).toBe(3);
    expect(pod).toBeDefined();
    for (const [k, v] of Object.entries(deployment.spec.selector.matchLabels)) {
      expect(deployment.spec.template.metadata.labels[k]).toBe(v);
    }
  });

  test('every env name it sets is one src/config.ts reads, and the settings load', () => {
    const read = configEnvNames();
    expect(read).toContain('PORT');
    expect(read).toContain('REDIS_CLUSTER_NODES');
    for (const name of envNames) expect(read).toContain(name);
    const refs = container.envFrom.map(
      (e: { configMapRef?: { name: string }; secretRef?: { name: string } }) =>
        e.configMapRef?.name ?? e.secretRef?.name,
    );
    expect(refs).toEqual(['relayq-config', 'relayq-secrets']);
    const config = loadConfig({ ...settings, RELAY_DATA_DIR: '/tmp/relayq' });
    expect(config.port).toBe(8080);
    expect(config.metricsPort).toBe(9464);
    expect(config.embeddedRedis).toBe(false);
    expect(config.redis.url).toBe('redis://relayq-redis:6379');
  });

  test('probes hit /readyz and /healthz on the port the server listens on', () => {
    const port = Number(configMap.data.PORT);
    const http = container.ports.find((p: { name: string }) => p.name === 'http');
    expect(http.containerPort).toBe(port);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port });
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port });
  });

  test('metrics port and Prometheus annotations match METRICS_PORT', () => {
    const metricsPort = Number(configMap.data.METRICS_PORT);
    expect(metricsPort).toBe(9464);
    const metrics = container.ports.find((p: { name: string }) => p.name === 'metrics');
    expect(metrics.containerPort).toBe(metricsPort);
    const annotations = deployment.spec.template.metadata.annotations;
    expect(annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metricsPort),
      'prometheus.io/path': '/metrics',
    });
  });

  test('preStop plus the shutdown grace fit in terminationGracePeriodSeconds', () => {
    const preStop = container.lifecycle.preStop.exec.command;
    expect(preStop[0]).toBe('sleep');
    const preStopMs = Number(preStop[1]) * 1000;
    const graceMs = Number(configMap.data.RELAY_SHUTDOWN_GRACE_MS);
    expect(graceMs).toBeGreaterThan(0);
    expect(preStopMs + graceMs + 2000).toBeLessThanOrEqual(
      pod.terminationGracePeriodSeconds * 1000,
    );
    expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(30);
  });

  test('runs as non-root on a read-only root filesystem, with a writable /tmp', () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    const tmp = container.volumeMounts.find((v: { mountPath: string }) => v.mountPath === '/tmp');
    expect(pod.volumes.find((v: { name: string }) => v.name === tmp.name).emptyDir).toBeDefined();
    expect(container.env).toContainEqual({ name: 'RELAY_DATA_DIR', value: '/tmp/relayq' });
  });

  test('has resource requests and limits', () => {
    expect(container.resources.requests).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
    expect(container.resources.limits).toEqual(
      expect.objectContaining({ memory: expect.any(String) }),
    );
  });

  test('keeps the image command: no command or args override', () => {
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
  });
});

describe('Service, HPA, PDB and Ingress', () => {
  const labels = find('Deployment', 'relayq').spec.template.metadata.labels;

  test('the Service selects the pods and targets the named ports', () => {
    const service = find('Service', 'relayq');
    for (const [k, v] of Object.entries(service.spec.selector)) expect(labels[k]).toBe(v);
    expect(service.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual([
      'http',
      'metrics',
    ]);
  });

  test('the HPA scales the Deployment from 3 pods and the PDB keeps 2 of them', () => {
    const hpa = find('HorizontalPodAutoscaler', 'relayq');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'relayq',
    });
    expect(hpa.spec.minReplicas).toBe(3);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(3);
    const pdb = find('PodDisruptionBudget', 'relayq');
    expect(pdb.spec.minAvailable).toBe(2);
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
  });

  test('the Ingress routes to the public port only, with WebSocket-friendly timeouts', () => {
    const ingress = find('Ingress', 'relayq');
    expect(ingress.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
    });
    const backends = ingress.spec.rules.flatMap((r: Doc) =>
      r.http.paths.map((p: Doc) => p.backend.service),
    );
    expect(backends).toEqual([{ name: 'relayq', port: { name: 'http' } }]);
  });
});

describe('the Redis options', () => {
  test('the StatefulSet runs Redis with AOF fsync always, noeviction, on a volume', () => {
    const sts = find('StatefulSet', 'relayq-redis');
    const conf = find('ConfigMap', 'relayq-redis-config').data['redis.conf'] as string;
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync always$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    expect(conf).toMatch(/^dir \/data$/m);
    const container = sts.spec.template.spec.containers[0];
    expect(container.args).toEqual(['/etc/redis/redis.conf']);
    expect(container.volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    expect(sts.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    // the relay's REDIS_URL names this Redis's Service and port
    const service = find('Service', 'relayq-redis');
    const url = new URL(find('Secret', 'relayq-secrets').stringData.REDIS_URL);
    expect(url.hostname).toBe(service.metadata.name);
    expect(Number(url.port)).toBe(service.spec.ports[0].port);
    expect(sts.spec.serviceName).toBe(service.metadata.name);
  });

  test('the managed Redis Cluster variant sets REDIS_CLUSTER_NODES and clears REDIS_URL', () => {
    const file = path.join(K8S, 'managed-redis-cluster', 'secret-patch.yaml');
    const [patch] = parse(file);
    const settings = {
      ...find('ConfigMap', 'relayq-config').data,
      ...find('Secret', 'relayq-secrets').stringData,
      ...patch.stringData,
    };
    const read = configEnvNames();
    for (const name of Object.keys(patch.stringData)) expect(read).toContain(name);
    const config = loadConfig(settings);
    expect(config.redis.url).toBeNull();
    expect(config.redis.clusterNodes).toHaveLength(3);
  });
});

describe('the Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));

  test('its CMD is the command npm start (the README) runs', () => {
    const cmd = instructions.filter((l) => l.startsWith('CMD '));
    expect(cmd).toHaveLength(1);
    const argv = JSON.parse(cmd[0].slice(4)) as string[];
    expect(argv).toEqual(['node', 'dist/src/cli/main.js', 'serve']);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toContain(argv.join(' '));
    expect(fs.existsSync(path.join(ROOT, 'src', 'cli', 'main.ts'))).toBe(true);
  });

  test('is multi-stage, runtime dependencies only, lua/ included, non-root, with a HEALTHCHECK on /healthz', () => {
    expect(instructions.filter((l) => l.startsWith('FROM '))).toHaveLength(2);
    expect(dockerfile).toContain('RUN npm ci --no-audit');
    expect(dockerfile).toContain('npm ci --omit=dev --ignore-scripts');
    expect(instructions).toContain('COPY --from=build /app/dist ./dist');
    expect(instructions).toContain('COPY lua ./lua');
    const user = instructions.filter((l) => l.startsWith('USER '));
    expect(user).toEqual(['USER 1000:1000']);
    const deployment = find('Deployment', 'relayq');
    expect(deployment.spec.template.spec.securityContext.runAsUser).toBe(1000);
    const health = instructions.find((l) => l.startsWith('HEALTHCHECK '));
    expect(health).toContain('/healthz');
    expect(instructions.find((l) => l.startsWith('EXPOSE '))).toBe('EXPOSE 8080 9464');
  });

  test('.dockerignore keeps node_modules, dist and .git out of the context', () => {
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', '.git']) expect(ignored).toContain(entry);
    for (const needed of ['src', 'lua', 'package.json', 'package-lock.json']) {
      expect(ignored).not.toContain(needed);
    }
  });
});
