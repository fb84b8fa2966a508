/**
 * The only reader of process.env. Every setting (declared once, with its
 * reference text, in settings.ts) is read and checked here at start-up;
 * a bad value stops the start with a message that names it.
 */
import { SETTINGS } from './settings';
import { ConfigError } from './setting';
import { parsePlans, type Plans } from './plans';

export { ConfigError } from './setting';
export { DEFAULT_PLANS, parsePlans, type Plan, type Plans } from './plans';
export { trustProxy } from './settings';

export interface RedisTarget {
  /** redis:// or rediss:// URL of one Redis; null with clusterNodes or the embedded default. */
  url: string | null;
  /** host:port seeds of a Redis Cluster; empty when not clustered. */
  clusterNodes: { host: string; port: number }[];
}

type Settings = typeof SETTINGS;
type SettingValues = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** Every setting by its name in SETTINGS, with the Redis target gathered in `redis`. */
export type Config = Omit<SettingValues, 'redisUrl' | 'redisClusterNodes' | 'plans'> & {
  plans: Plans;
  redis: RedisTarget;
  /** True when no Redis was named: the service runs its own redis-server child. */
  embeddedRedis: boolean;
};

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const values = {} as Record<string, unknown>;
  for (const [name, setting] of Object.entries(SETTINGS)) {
    values[name] = setting.parse(env[setting.env]);
  }
  const { redisUrl, redisClusterNodes, plans: plansJson, ...settings } = values as SettingValues;
  const rest = {
    ...settings,
    plans: parsePlans(plansJson, {
      rate_limit_per_second: settings.rateLimitPerSecond,
      rate_limit_burst: settings.rateLimitBurst,
    }),
  };
  if (redisUrl && redisClusterNodes.length > 0) {
    throw new ConfigError('set either REDIS_URL or REDIS_CLUSTER_NODES, not both');
  }
  if (!rest.plans[rest.defaultPlan]) {
    throw new ConfigError(
      `RELAY_DEFAULT_PLAN "${rest.defaultPlan}" is not a plan; plans: ${Object.keys(rest.plans).join(', ')}`,
    );
  }
  return Object.freeze({
    ...rest,
    redis: Object.freeze({ url: redisUrl, clusterNodes: redisClusterNodes }),
    embeddedRedis: redisUrl === null && redisClusterNodes.length === 0,
  });
}
