/**
 * The only reader of process.env. Every setting is validated here at start-up;
 * a bad value stops the start with a message that names it.
 */
import path from 'node:path';

export interface Plan {
  max_storage_bytes: number;
  max_channels: number;
  retention_seconds: number;
}

export type Plans = Readonly<Record<string, Readonly<Plan>>>;

export const DEFAULT_PLANS: Plans = {
  free: { max_storage_bytes: 10_000_000, max_channels: 5, retention_seconds: 3 * 86400 },
  paid: { max_storage_bytes: 100_000_000, max_channels: 100, retention_seconds: 14 * 86400 },
};

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
  /** Safety check of each open WebSocket's token, per pod (revocations and expiry are pushed). */
  wsTokenRecheckMs: number;
  shutdownGraceMs: number;
  sweepIntervalMs: number;
  /** 'replicated': acknowledged writes have reached durabilityReplicas replicas (WAIT). */
  durability: 'local' | 'replicated';
  durabilityReplicas: number;
  /** How long a write waits for its replicas before the 503 (below the 2 s command timeout). */
  durabilityTimeoutMs: number;
  /** Partitions of the sweeper's due index (each on its own Cluster slot). */
  sweepPartitions: number;
  /** How long one repair pass over every account's timers takes, about (ms). */
  dueRepairPassMs: number;
  /** At most one new_message per channel per this many ms leaves Redis; 0 publishes every one. */
  fanoutWindowMs: number;
  /** Requests per second per token; 0 disables rate limiting. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  maxWsConnectionsPerToken: number;
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

const PLAN_FIELDS: (keyof Plan)[] = ['max_storage_bytes', 'max_channels', 'retention_seconds'];

export function parsePlans(raw: string | undefined): Plans {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PLANS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('RELAY_PLANS must be a JSON object, e.g. {"free":{"max_channels":5}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('RELAY_PLANS must be a JSON object of plan name to limits');
  }
  const plans: Record<string, Plan> = { ...DEFAULT_PLANS };
  for (const [name, overrides] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
      throw new ConfigError(`RELAY_PLANS: plan name "${name}" must be 1 to 64 of A-Z a-z 0-9 _ -`);
    }
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
      throw new ConfigError(`RELAY_PLANS.${name} must be an object of limits`);
    }
    const base: Partial<Plan> = DEFAULT_PLANS[name] ? { ...DEFAULT_PLANS[name] } : {};
    for (const [field, value] of Object.entries(overrides as Record<string, unknown>)) {
      if (!PLAN_FIELDS.includes(field as keyof Plan)) {
        throw new ConfigError(
          `RELAY_PLANS.${name}.${field} is not a plan limit; use ${PLAN_FIELDS.join(', ')}`,
        );
      }
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
        throw new ConfigError(`RELAY_PLANS.${name}.${field} must be a positive whole number`);
      }
      base[field as keyof Plan] = value;
    }
    for (const field of PLAN_FIELDS) {
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
  const plans = parsePlans(env.RELAY_PLANS);
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
  const durability = env.RELAY_DURABILITY || 'local';
  if (durability !== 'local' && durability !== 'replicated') {
    throw new ConfigError(`RELAY_DURABILITY must be local or replicated, got "${durability}"`);
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
    wsTokenRecheckMs: integer(env, 'RELAY_WS_TOKEN_RECHECK_MS', 60_000, 100, 3_600_000),
    shutdownGraceMs: integer(env, 'RELAY_SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    sweepIntervalMs: integer(env, 'RELAY_SWEEP_INTERVAL_MS', 200, 10, 60_000),
    durability,
    durabilityReplicas: integer(env, 'RELAY_DURABILITY_REPLICAS', 1, 1, 100),
    durabilityTimeoutMs: integer(env, 'RELAY_DURABILITY_TIMEOUT_MS', 1000, 10, 1500),
    sweepPartitions: integer(env, 'RELAY_SWEEP_PARTITIONS', 16, 1, 1024),
    dueRepairPassMs: integer(env, 'RELAY_DUE_REPAIR_PASS_MS', 30_000, 1000, 3_600_000),
    fanoutWindowMs: integer(env, 'RELAY_FANOUT_WINDOW_MS', 50, 0, 10_000),
    rateLimitPerSecond: integer(env, 'RELAY_RATE_LIMIT_PER_SECOND', 0, 0, 1_000_000),
    rateLimitBurst: integer(env, 'RELAY_RATE_LIMIT_BURST', 0, 0, 1_000_000),
    maxWsConnectionsPerToken: integer(env, 'RELAY_MAX_WS_CONNECTIONS_PER_TOKEN', 100, 1, 1_000_000),
    sessionTtlSeconds: integer(env, 'RELAY_SESSION_TTL_SECONDS', 8 * 3600, 1, 30 * 86_400),
    authCacheMs: integer(env, 'RELAY_AUTH_CACHE_MS', 0, 0, 60_000),
  });
}
