/**
 * The only reader of process.env. Every setting is validated here at start-up;
 * a bad value stops the start with a message that names it.
 */
import path from 'node:path';

export interface Plan {
  max_storage_bytes: number;
  max_channels: number;
  retention_seconds: number;
  /** requests per second for the whole account, across pods and tokens; 0: unlimited */
  rate_limit_per_second: number;
  /** requests allowed at once before the rate applies; 0: one second's worth */
  rate_limit_burst: number;
  /** tokens an account may hold (dashboard sessions not counted) */
  max_tokens: number;
  /** open WebSocket connections of the account, across pods */
  max_websocket_connections: number;
  /** concurrent long-poll waits (pulls with wait_ms) of the account, across pods */
  max_long_polls: number;
}

export type Plans = Readonly<Record<string, Readonly<Plan>>>;

/** The limits a plan need not set: RELAY_RATE_LIMIT_* give the rate of plans that set none. */
export interface PlanDefaults {
  rate_limit_per_second: number;
  rate_limit_burst: number;
}

function defaultPlans(d: PlanDefaults): Record<string, Plan> {
  const common = { ...d, max_tokens: 100, max_long_polls: 1000 };
  return {
    free: {
      max_storage_bytes: 10_000_000,
      max_channels: 5,
      retention_seconds: 3 * 86400,
      ...common,
      max_websocket_connections: 1000,
    },
    paid: {
      max_storage_bytes: 100_000_000,
      max_channels: 100,
      retention_seconds: 14 * 86400,
      ...common,
      max_websocket_connections: 10_000,
    },
  };
}

export const DEFAULT_PLANS: Plans = defaultPlans({ rate_limit_per_second: 0, rate_limit_burst: 0 });

export interface RedisTarget {
  /** redis:// or rediss:// URL of one Redis; null with clusterNodes or the embedded default. */
  url: string | null;
  /** host:port seeds of a Redis Cluster; empty when not clustered. */
  clusterNodes: { host: string; port: number }[];
}

export interface Config {
  port: number;
  host: string;
  metricsPort: number;
  redis: RedisTarget;
  /** True when no Redis was named: the service runs its own redis-server child. */
  embeddedRedis: boolean;
  redisServerBin: string;
  dataDir: string;
  adminToken: string | null;
  plans: Plans;
  defaultPlan: string;
  logLevel: string;
  wsPingIntervalMs: number;
  shutdownGraceMs: number;
  sweepIntervalMs: number;
  /** WebSocket connections per token per pod (the account's cap is the plan's) */
  maxWsConnectionsPerToken: number;
  /** operator API requests per second (per pod); 0: unlimited */
  adminRateLimitPerSecond: number;
  /** which proxies' X-Forwarded-* headers to believe: Express's `trust proxy` value */
  trustProxy: boolean | number | string[];
  /** lifetime of a dashboard session */
  sessionTtlSeconds: number;
  /**
   * How long a pod may reuse a token lookup (ms); 0 (the default) reads the token
   * from Redis on every request. This pod's own revocations and plan changes take
   * effect at once; another pod's within this time.
   */
  authCacheMs: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

function redisUrl(env: Env): string | null {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return null;
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

function clusterNodes(env: Env): { host: string; port: number }[] {
  const raw = env.REDIS_CLUSTER_NODES;
  if (raw === undefined || raw.trim() === '') return [];
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

/** Limits every new plan must set; the others default to the free plan's. */
const REQUIRED_FIELDS: (keyof Plan)[] = ['max_storage_bytes', 'max_channels', 'retention_seconds'];
const PLAN_FIELDS: (keyof Plan)[] = [
  ...REQUIRED_FIELDS,
  'rate_limit_per_second',
  'rate_limit_burst',
  'max_tokens',
  'max_websocket_connections',
  'max_long_polls',
];
/** Limits where 0 means "unlimited" (rate) or "one second's worth" (burst). */
const ZERO_ALLOWED = new Set<keyof Plan>(['rate_limit_per_second', 'rate_limit_burst']);

export function parsePlans(
  raw: string | undefined,
  defaults: PlanDefaults = { rate_limit_per_second: 0, rate_limit_burst: 0 },
): Plans {
  const DEFAULTS = defaultPlans(defaults);
  if (raw === undefined || raw.trim() === '') return Object.freeze(DEFAULTS);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('RELAY_PLANS must be a JSON object, e.g. {"free":{"max_channels":5}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('RELAY_PLANS must be a JSON object of plan name to limits');
  }
  const plans: Record<string, Plan> = { ...DEFAULTS };
  for (const [name, overrides] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
      throw new ConfigError(`RELAY_PLANS: plan name "${name}" must be 1 to 64 of A-Z a-z 0-9 _ -`);
    }
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
      throw new ConfigError(`RELAY_PLANS.${name} must be an object of limits`);
    }
    const {
      max_storage_bytes: _s,
      max_channels: _c,
      retention_seconds: _r,
      ...optional
    } = DEFAULTS.free;
    const base: Partial<Plan> = DEFAULTS[name] ? { ...DEFAULTS[name] } : { ...optional };
    for (const [field, value] of Object.entries(overrides as Record<string, unknown>)) {
      if (!PLAN_FIELDS.includes(field as keyof Plan)) {
        throw new ConfigError(
          `RELAY_PLANS.${name}.${field} is not a plan limit; use ${PLAN_FIELDS.join(', ')}`,
        );
      }
      const min = ZERO_ALLOWED.has(field as keyof Plan) ? 0 : 1;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
        throw new ConfigError(
          `RELAY_PLANS.${name}.${field} must be a ${min === 0 ? 'non-negative' : 'positive'} whole number`,
        );
      }
      base[field as keyof Plan] = value;
    }
    for (const field of REQUIRED_FIELDS) {
      if (base[field] === undefined) {
        throw new ConfigError(
          `RELAY_PLANS.${name}.${field} is required for the new plan "${name}"`,
        );
      }
    }
    plans[name] = base as Plan;
  }
  return Object.freeze(plans);
}

/**
 * RELAY_TRUST_PROXY: unset or "false": X-Forwarded-* is ignored; "true": every
 * proxy is believed; a number: that many hops; else a comma-separated list of
 * addresses, CIDRs or Express's names (loopback, linklocal, uniquelocal).
 */
export function trustProxy(raw: string | undefined): boolean | number | string[] {
  const value = (raw ?? '').trim();
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

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const url = redisUrl(env);
  const nodes = clusterNodes(env);
  if (url && nodes.length > 0) {
    throw new ConfigError('set either REDIS_URL or REDIS_CLUSTER_NODES, not both');
  }
  const adminToken = env.RELAY_ADMIN_TOKEN ?? '';
  if (adminToken !== '' && adminToken.length < 16) {
    throw new ConfigError('RELAY_ADMIN_TOKEN must be at least 16 characters');
  }
  const plans = parsePlans(env.RELAY_PLANS, {
    rate_limit_per_second: integer(env, 'RELAY_RATE_LIMIT_PER_SECOND', 0, 0, 1_000_000),
    rate_limit_burst: integer(env, 'RELAY_RATE_LIMIT_BURST', 0, 0, 1_000_000),
  });
  const defaultPlan = env.RELAY_DEFAULT_PLAN || 'free';
  if (!plans[defaultPlan]) {
    throw new ConfigError(
      `RELAY_DEFAULT_PLAN "${defaultPlan}" is not a plan; plans: ${Object.keys(plans).join(', ')}`,
    );
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`,
    );
  }
  const host = env.HOST || '0.0.0.0';
  if (!/^[A-Za-z0-9._:%-]{1,253}$/.test(host)) {
    throw new ConfigError(`HOST must be an IP address or a host name, got "${host}"`);
  }
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    metricsPort: integer(env, 'METRICS_PORT', 9464, 0, 65535),
    redis: Object.freeze({ url, clusterNodes: nodes }),
    embeddedRedis: url === null && nodes.length === 0,
    redisServerBin: env.REDIS_SERVER_BIN || 'redis-server',
    dataDir: path.resolve(env.RELAY_DATA_DIR || './data'),
    adminToken: adminToken === '' ? null : adminToken,
    plans,
    defaultPlan,
    logLevel,
    wsPingIntervalMs: integer(env, 'RELAY_WS_PING_INTERVAL_MS', 30_000, 100, 3_600_000),
    shutdownGraceMs: integer(env, 'RELAY_SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    sweepIntervalMs: integer(env, 'RELAY_SWEEP_INTERVAL_MS', 200, 10, 60_000),
    maxWsConnectionsPerToken: integer(
      env,
      'RELAY_MAX_WS_CONNECTIONS_PER_TOKEN',
      10_000,
      1,
      1_000_000,
    ),
    adminRateLimitPerSecond: integer(env, 'RELAY_ADMIN_RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000),
    trustProxy: trustProxy(env.RELAY_TRUST_PROXY),
    sessionTtlSeconds: integer(env, 'RELAY_SESSION_TTL_SECONDS', 8 * 3600, 1, 30 * 86_400),
    authCacheMs: integer(env, 'RELAY_AUTH_CACHE_MS', 0, 0, 60_000),
  });
}
