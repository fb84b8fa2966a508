/**
 * Every setting of the service, declared once: variable, type, default, bounds,
 * description and reading. src/config.ts reads them into the Config;
 * docs/configuration.md is generated from them (npm run docs:config).
 * Adding a setting is adding one entry here.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { parsePlans } from './plans';
import { ConfigError, custom, integer, oneOf } from './setting';

const ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

function redisUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`REDIS_URL must be a URL such as redis://localhost:6379, got "${raw}"`);
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(parsed.protocol)) {
    throw new ConfigError(`REDIS_URL must start with redis://, rediss:// or unix://, got "${raw}"`);
  }
  return raw;
}

function clusterNodes(raw: string): { host: string; port: number }[] {
  if (raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const match = /^\s*([^\s:]+):(\d{1,5})\s*$/.exec(entry);
    if (!match || Number(match[2]) > 65535) {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES must be host:port,host:port..., got "${entry.trim()}"`,
      );
    }
    return { host: match[1], port: Number(match[2]) };
  });
}

/**
 * RELAY_TRUST_PROXY: "false": X-Forwarded-* is ignored; "true": every proxy is
 * believed; a number: that many hops; else a comma-separated list of
 * addresses, CIDRs or Express's names (loopback, linklocal, uniquelocal).
 */
export function trustProxy(raw: string): boolean | number | string[] {
  const value = raw.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (!/^(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:]+(\/\d{1,3})?)$/.test(entry)) {
      throw new ConfigError(
        `RELAY_TRUST_PROXY must be true, a hop count, or addresses/CIDRs separated by commas; "${entry}" is none`,
      );
    }
  }
  return entries;
}

export const SETTINGS = {
  port: integer('PORT', {
    default: 8080,
    min: 0,
    max: 65535,
    description: 'public HTTP and WebSocket port (0: any free port)',
  }),
  host: custom('HOST', {
    type: 'host',
    default: '0.0.0.0',
    bounds: 'an IP address or a host name',
    description: 'address both ports listen on',
    whenUnset: '0.0.0.0',
    read(raw) {
      if (!/^[A-Za-z0-9._:%-]{1,253}$/.test(raw)) {
        throw new ConfigError(`HOST must be an IP address or a host name, got "${raw}"`);
      }
      return raw;
    },
  }),
  metricsPort: integer('METRICS_PORT', {
    default: 9464,
    min: 0,
    max: 65535,
    description: 'Prometheus `/metrics` port, never served on `PORT`',
  }),
  redisUrl: custom<string | null>('REDIS_URL', {
    type: 'URL',
    default: '(unset)',
    bounds: '`redis://`, `rediss://` or `unix://`',
    description: 'one Redis; with neither this nor `REDIS_CLUSTER_NODES` the service runs its own',
    whenUnset: null,
    read: redisUrl,
  }),
  redisClusterNodes: custom('REDIS_CLUSTER_NODES', {
    type: 'list',
    default: '(unset)',
    bounds: '`host:port,host:port,...`',
    description: 'seeds of a Redis Cluster; excludes `REDIS_URL`',
    whenUnset: [] as { host: string; port: number }[],
    read: clusterNodes,
  }),
  dataDir: {
    env: 'RELAY_DATA_DIR',
    type: 'path',
    default: '`./data`',
    bounds: '',
    description:
      'data of the embedded redis-server (only when no Redis is named), and the quick start credentials file',
    // resolved when read, against the working directory of that moment
    parse: (raw: string | undefined) => path.resolve(raw || './data'),
  },
  redisServerBin: custom('REDIS_SERVER_BIN', {
    type: 'path',
    default: '`redis-server`',
    description: 'binary of the embedded mode',
    whenUnset: 'redis-server',
    read: (raw) => raw,
  }),
  adminToken: custom<string | null>('RELAY_ADMIN_TOKEN', {
    type: 'string',
    default: '(unset)',
    bounds: 'at least 16 characters',
    description: 'enables the operator API (`/v1/admin`) with this bearer token',
    whenUnset: null,
    read(raw) {
      if (raw.length < 16)
        throw new ConfigError('RELAY_ADMIN_TOKEN must be at least 16 characters');
      return raw;
    },
  }),
  // parsed in config.ts, where RELAY_RATE_LIMIT_* give the rates of plans that set none
  plans: custom<string | undefined>('RELAY_PLANS', {
    type: 'JSON',
    default: '`free` and `paid` (below)',
    bounds: 'plan name to limits; see Plans',
    description: 'overrides of the plans, field by field, and new plans',
    whenUnset: undefined,
    read(raw) {
      parsePlans(raw);
      return raw;
    },
  }),
  defaultPlan: custom('RELAY_DEFAULT_PLAN', {
    type: 'string',
    default: '`free`',
    bounds: 'a plan name',
    description: 'plan of accounts created without one',
    whenUnset: 'free',
    read: (raw) => raw,
  }),
  logLevel: oneOf('LOG_LEVEL', {
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description:
      'JSON log lines on stdout at this level and above (`warn` drops per-request lines)',
  }),
  wsPingIntervalMs: integer('RELAY_WS_PING_INTERVAL_MS', {
    default: 30_000,
    min: 100,
    max: 3_600_000,
    unit: 'ms',
    description: 'WebSocket ping interval; a connection that misses a pong is closed',
  }),
  wsTokenRecheckMs: integer('RELAY_WS_TOKEN_RECHECK_MS', {
    default: 60_000,
    min: 100,
    max: 3_600_000,
    unit: 'ms',
    description:
      "safety check of each open WebSocket's token on each pod (revocations and expiry are pushed at once; this catches a lost push)",
  }),
  bodyTimeoutMs: integer('RELAY_BODY_TIMEOUT_MS', {
    default: 30_000,
    min: 100,
    max: 3_600_000,
    unit: 'ms',
    description:
      "a request body must have arrived whole within this time of the end of its headers, however it trickles, or the request is answered 408 (in its entrance's shape) and its connection closed; on every route",
  }),
  shutdownGraceMs: integer('RELAY_SHUTDOWN_GRACE_MS', {
    default: 20_000,
    min: 0,
    max: 600_000,
    unit: 'ms',
    description: 'how long in-flight requests may take to finish after SIGTERM',
  }),
  sweepIntervalMs: integer('RELAY_SWEEP_INTERVAL_MS', {
    default: 200,
    min: 10,
    max: 60_000,
    unit: 'ms',
    description: 'how often each pod looks for due delays, leases, expiries',
  }),
  replayTickMs: integer('RELAY_REPLAY_TICK_MS', {
    default: 200,
    min: 10,
    max: 60_000,
    unit: 'ms',
    description:
      'how often each pod steps the bulk replay jobs it runs (a cancel stops copies within about this)',
  }),
  durability: oneOf('RELAY_DURABILITY', {
    values: ['local', 'replicated'],
    default: 'local',
    description:
      '`replicated`: every write a client is told succeeded has reached `RELAY_DURABILITY_REPLICAS` replicas (WAIT); see docs/deploying.md#durability-modes',
  }),
  durabilityReplicas: integer('RELAY_DURABILITY_REPLICAS', {
    default: 1,
    min: 1,
    max: 100,
    description: 'replicas an acknowledged write must reach in `replicated` mode',
  }),
  durabilityTimeoutMs: integer('RELAY_DURABILITY_TIMEOUT_MS', {
    default: 1000,
    min: 10,
    max: 1500,
    unit: 'ms',
    description:
      "how long a write waits for its replicas before the 503 'stored on the primary but not confirmed'",
  }),
  sweepPartitions: integer('RELAY_SWEEP_PARTITIONS', {
    default: 16,
    min: 1,
    max: 1024,
    description:
      "partitions of the sweeper's due index, each on its own Cluster slot; the same on every pod",
  }),
  dueRepairPassMs: integer('RELAY_DUE_REPAIR_PASS_MS', {
    default: 30_000,
    min: 1000,
    max: 3_600_000,
    unit: 'ms',
    description:
      "about how long one repair pass over every account's timers takes (restores lost due-index entries)",
  }),
  fanoutWindowMs: integer('RELAY_FANOUT_WINDOW_MS', {
    default: 50,
    min: 0,
    max: 10_000,
    unit: 'ms',
    description:
      'coalescing window of `new_message`: the first send of a burst and a send to a drained channel are announced at once, other sends to the channel by at most one trailing event per this many ms; 0 publishes every one',
  }),
  rateLimitPerSecond: integer('RELAY_RATE_LIMIT_PER_SECOND', {
    default: 0,
    min: 0,
    max: 1_000_000,
    description:
      'requests per second of an account whose plan sets no `rate_limit_per_second`; 0: unlimited',
  }),
  rateLimitBurst: integer('RELAY_RATE_LIMIT_BURST', {
    default: 0,
    min: 0,
    max: 1_000_000,
    description: "burst of an account whose plan sets no `rate_limit_burst`; 0: one second's worth",
  }),
  maxWsConnectionsPerToken: integer('RELAY_MAX_WS_CONNECTIONS_PER_TOKEN', {
    default: 10_000,
    min: 1,
    max: 1_000_000,
    description:
      "open WebSocket connections per token on one pod (the account's cap across pods is the plan's `max_websocket_connections`)",
  }),
  adminRateLimitPerSecond: integer('RELAY_ADMIN_RATE_LIMIT_PER_SECOND', {
    default: 100,
    min: 0,
    max: 1_000_000,
    description: 'operator API (`/v1/admin`) requests per second on each pod; 0: unlimited',
  }),
  trustProxy: custom<boolean | number | string[]>('RELAY_TRUST_PROXY', {
    type: 'trust',
    default: '(unset: `false`)',
    bounds: '`true`, a hop count, or addresses/CIDRs separated by commas',
    description:
      "which proxies' `X-Forwarded-*` headers to believe (Express's `trust proxy`): client scheme for the session cookie's `Secure` and the Origin check, logged client addresses, rate limiting; unset: ignored everywhere",
    whenUnset: false,
    read: trustProxy,
  }),
  sessionTtlSeconds: integer('RELAY_SESSION_TTL_SECONDS', {
    default: 8 * 3600,
    min: 1,
    max: 30 * 86_400,
    unit: 's',
    description: 'lifetime of a dashboard session',
  }),
  authCacheMs: integer('RELAY_AUTH_CACHE_MS', {
    default: 0,
    min: 0,
    max: 60_000,
    unit: 'ms',
    description:
      'not needed any more, and ignored (a warning is logged when set): every request checks its token inside its one Redis call, so a revocation applies on every pod from the next request. Still accepted so that existing configurations start',
  }),
  publicUrl: custom<string | null>('RELAY_PUBLIC_URL', {
    type: 'URL',
    default: '(unset)',
    bounds: '`http://` or `https://`, no query',
    description:
      "public address of the service (e.g. `https://relay.example.com`), the base of webhook URLs; unset: each request's own scheme and host",
    whenUnset: null,
    read(raw) {
      let parsed: URL;
      try {
        parsed = new URL(raw.trim());
      } catch {
        throw new ConfigError(
          `RELAY_PUBLIC_URL must be a URL such as https://relay.example.com, got "${raw}"`,
        );
      }
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash) {
        throw new ConfigError(
          `RELAY_PUBLIC_URL must be an http:// or https:// address without query, got "${raw}"`,
        );
      }
      return parsed.toString().replace(/\/+$/, '');
    },
  }),
  destinationsAllowPrivate: custom<boolean | null>('RELAY_DESTINATIONS_ALLOW_PRIVATE', {
    type: 'boolean',
    default: '(unset: true in the embedded quick start, else false)',
    bounds: 'true or false',
    description:
      'lets push destinations connect to loopback, private, link-local and metadata addresses (refused otherwise, on the address actually connected to). See docs/api/destinations.md',
    whenUnset: null,
    read(raw) {
      const value = raw.trim();
      if (value === 'true') return true;
      if (value === 'false') return false;
      throw new ConfigError(`RELAY_DESTINATIONS_ALLOW_PRIVATE must be true or false, got "${raw}"`);
    },
  }),
  webhookSecretKey: custom<Buffer | null>('RELAY_WEBHOOK_SECRET_KEY', {
    type: 'string',
    default: '(unset)',
    bounds: 'at least 32 characters, the same on every pod',
    description:
      'seals webhook signing secrets in Redis (AES-256-GCM under its SHA-256); unset: they are stored as given. See docs/api/webhooks.md',
    whenUnset: null,
    read(raw) {
      if (raw.length < 32) {
        throw new ConfigError(
          'RELAY_WEBHOOK_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 32)',
        );
      }
      return crypto.createHash('sha256').update(raw).digest();
    },
  }),
  sqsSecretKey: custom<string | null>('RELAY_SQS_SECRET_KEY', {
    type: 'string',
    default: '(unset; the embedded mode makes one in `RELAY_DATA_DIR/sqs-secret-key`)',
    bounds: 'at least 32 characters, the same on every pod',
    description:
      "server key the SQS endpoint's AWS secret keys are derived from (HMAC); unset: no AWS credentials can be issued. Changing it invalidates every issued AWS secret (docs/sqs.md)",
    whenUnset: null,
    read(raw) {
      if (raw.length < 32)
        throw new ConfigError('RELAY_SQS_SECRET_KEY must be at least 32 characters');
      return raw;
    },
  }),
  gaugeIntervalMs: integer('RELAY_GAUGE_INTERVAL_MS', {
    default: 1000,
    min: 50,
    max: 60_000,
    unit: 'ms',
    description:
      'how often a pod folds the accounts it changed into the service-wide backlog gauges on `/metrics` (their freshness)',
  }),
  historyCountIntervalMs: integer('RELAY_HISTORY_COUNT_INTERVAL_MS', {
    default: 15_000,
    min: 100,
    max: 3_600_000,
    unit: 'ms',
    description:
      'how often a pod counts the records of every channel history for `relayq_history_records` (a walk over the history indexes, not done on a scrape)',
  }),
  metricsAccounts: custom('RELAY_METRICS_ACCOUNTS', {
    type: 'list',
    default: '(unset)',
    bounds: 'account ids separated by commas',
    description:
      'accounts whose channels get per-channel series on `/metrics` (`relayq_channel_*`), and their push destinations per-destination ones (`relayq_destination_*`); each scrape reads their channels',
    whenUnset: Object.freeze([]) as readonly string[],
    read(raw) {
      const ids = raw.split(',').map((s) => s.trim());
      for (const id of ids) {
        if (!ID.test(id)) {
          throw new ConfigError(
            `RELAY_METRICS_ACCOUNTS must be account ids separated by commas, got "${id}"`,
          );
        }
      }
      return Object.freeze([...new Set(ids)]);
    },
  }),
};
