/** Start-up configuration: defaults, and a message naming the variable for every bad value. */
import path from 'node:path';
import { ConfigError, DEFAULT_PLANS, loadConfig, parsePlans } from '../../src/config';

function error(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

test('defaults: port 8080 on 0.0.0.0, metrics 9464, embedded Redis in ./data, the default plans', () => {
  const c = loadConfig({});
  expect(c.port).toBe(8080);
  expect(c.host).toBe('0.0.0.0');
  expect(c.metricsPort).toBe(9464);
  expect(c.embeddedRedis).toBe(true);
  expect(c.dataDir).toBe(path.resolve('./data'));
  expect(c.adminToken).toBeNull();
  expect(c.redisServerBin).toBe('redis-server');
  const fairness = {
    rate_limit_per_second: 0,
    rate_limit_burst: 0,
    max_tokens: 100,
    max_long_polls: 1000,
  };
  expect(c.plans).toEqual({
    free: {
      max_storage_bytes: 10_000_000,
      max_channels: 5,
      retention_seconds: 259_200,
      ...fairness,
      max_websocket_connections: 1000,
      max_webhook_bytes: 1_048_576,
      webhook_refusals_per_second: 10,
      max_sqs_message_bytes: 262_144,
      max_history_seconds: 86_400,
    },
    paid: {
      max_storage_bytes: 100_000_000,
      max_channels: 100,
      retention_seconds: 1_209_600,
      ...fairness,
      max_websocket_connections: 10_000,
      max_webhook_bytes: 1_048_576,
      webhook_refusals_per_second: 10,
      max_sqs_message_bytes: 262_144,
      max_history_seconds: 2_592_000,
    },
  });
  expect(c.maxWsConnectionsPerToken).toBe(10_000);
  expect(c.trustProxy).toBe(false);
  expect(c.publicUrl).toBeNull();
  expect(c.webhookSecretKey).toBeNull();
  expect(Object.isFrozen(c)).toBe(true);
});

test('REDIS_URL turns the embedded default off', () => {
  const c = loadConfig({ REDIS_URL: 'redis://db:6379', PORT: '9000', HOST: '127.0.0.1' });
  expect(c.embeddedRedis).toBe(false);
  expect(c.redis.url).toBe('redis://db:6379');
  expect([c.port, c.host]).toEqual([9000, '127.0.0.1']);
  expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
  expect(loadConfig({ HOST: 'relay.internal' }).host).toBe('relay.internal');
});

test.each([
  [{ PORT: 'abc' }, 'PORT must be a whole number, got "abc"'],
  [{ HOST: 'my host' }, 'HOST must be an IP address or a host name, got "my host"'],
  [{ HOST: 'http://x' }, 'HOST must be an IP address or a host name, got "http://x"'],
  [{ PORT: '-1' }, 'PORT must be a whole number, got "-1"'],
  [{ PORT: '65536' }, 'PORT must be between 0 and 65535, got 65536'],
  [{ PORT: '80.5' }, 'PORT must be a whole number, got "80.5"'],
  [{ METRICS_PORT: 'x' }, 'METRICS_PORT must be a whole number, got "x"'],
  [
    { REDIS_URL: 'localhost:6379' },
    'REDIS_URL must start with redis://, rediss:// or unix://, got "localhost:6379"',
  ],
  [
    { REDIS_URL: 'not a url' },
    'REDIS_URL must be a URL such as redis://localhost:6379, got "not a url"',
  ],
  [{ RELAY_ADMIN_TOKEN: 'short' }, 'RELAY_ADMIN_TOKEN must be at least 16 characters'],
  [{ RELAY_PLANS: '{oops' }, 'RELAY_PLANS must be a JSON object, e.g. {"free":{"max_channels":5}}'],
  [{ RELAY_PLANS: '[1]' }, 'RELAY_PLANS must be a JSON object of plan name to limits'],
  [
    { RELAY_PLANS: '{"free":{"retention_seconds":0}}' },
    'RELAY_PLANS.free.retention_seconds must be a positive whole number',
  ],
  [
    { RELAY_PLANS: '{"free":{"max_channels":"5"}}' },
    'RELAY_PLANS.free.max_channels must be a positive whole number',
  ],
  [
    { RELAY_PLANS: '{"free":{"max_chanels":5}}' },
    'RELAY_PLANS.free.max_chanels is not a plan limit; use max_storage_bytes, max_channels, retention_seconds, rate_limit_per_second, rate_limit_burst, max_tokens, max_websocket_connections, max_long_polls, max_webhook_bytes, webhook_refusals_per_second, max_sqs_message_bytes, max_history_seconds',
  ],
  [
    { RELAY_PLANS: '{"gold":{"max_channels":5}}' },
    'RELAY_PLANS.gold.max_storage_bytes is required for the new plan "gold"',
  ],
  [{ RELAY_PLANS: '{"free":3}' }, 'RELAY_PLANS.free must be an object of limits'],
  [
    { RELAY_PLANS: '{"free":{"max_webhook_bytes":0}}' },
    'RELAY_PLANS.free.max_webhook_bytes must be a positive whole number',
  ],
  [
    { RELAY_PLANS: '{"free":{"max_sqs_message_bytes":1048577}}' },
    'RELAY_PLANS.free.max_sqs_message_bytes must be from 1024 to 1048576',
  ],
  [
    { RELAY_PLANS: '{"paid":{"max_sqs_message_bytes":1023}}' },
    'RELAY_PLANS.paid.max_sqs_message_bytes must be from 1024 to 1048576',
  ],
  [
    { RELAY_WEBHOOK_SECRET_KEY: 'short' },
    'RELAY_WEBHOOK_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 32)',
  ],
  [
    { RELAY_PUBLIC_URL: 'relay.example.com' },
    'RELAY_PUBLIC_URL must be a URL such as https://relay.example.com, got "relay.example.com"',
  ],
  [
    { RELAY_PUBLIC_URL: 'ftp://relay.example.com' },
    'RELAY_PUBLIC_URL must be an http:// or https:// address without query, got "ftp://relay.example.com"',
  ],
  [
    { RELAY_PLANS: '{"a b":{}}' },
    'RELAY_PLANS: plan name "a b" must be 1 to 64 of A-Z a-z 0-9 _ -',
  ],
  [{ RELAY_DEFAULT_PLAN: 'gold' }, 'RELAY_DEFAULT_PLAN "gold" is not a plan; plans: free, paid'],
  [
    { LOG_LEVEL: 'loud' },
    'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
  ],
  [
    { REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'b:2' },
    'set either REDIS_URL or REDIS_CLUSTER_NODES, not both',
  ],
  [{ REDIS_CLUSTER_NODES: 'b' }, 'REDIS_CLUSTER_NODES must be host:port,host:port..., got "b"'],
  [{ RELAY_SWEEP_INTERVAL_MS: '1' }, 'RELAY_SWEEP_INTERVAL_MS must be between 10 and 60000, got 1'],
])('%j stops the start: %s', (env, message) => {
  expect(error(env)).toBe(message);
});

test('RELAY_PLANS overrides a plan field by field and may add plans', () => {
  const plans = parsePlans(
    '{"free":{"retention_seconds":2},"team":{"max_storage_bytes":1,"max_channels":2,"retention_seconds":3}}',
  );
  expect(plans.free).toEqual({ ...DEFAULT_PLANS.free, retention_seconds: 2 });
  expect(plans.paid).toEqual(DEFAULT_PLANS.paid);
  // max_webhook_bytes and max_sqs_message_bytes may be left out of a new plan: 1 MiB, 256 KiB
  expect(plans.team).toEqual({
    max_storage_bytes: 1,
    max_channels: 2,
    retention_seconds: 3,
    rate_limit_per_second: 0,
    rate_limit_burst: 0,
    max_tokens: 100,
    max_websocket_connections: 1000,
    max_long_polls: 1000,
    max_webhook_bytes: 1_048_576,
    webhook_refusals_per_second: 10,
    max_sqs_message_bytes: 262_144,
    max_history_seconds: 86_400,
  });
});

test('RELAY_RATE_LIMIT_* set the rate of plans that set none; a plan may set its own', () => {
  const c = loadConfig({
    RELAY_RATE_LIMIT_PER_SECOND: '10',
    RELAY_RATE_LIMIT_BURST: '20',
    RELAY_PLANS: '{"paid":{"rate_limit_per_second":0,"max_long_polls":5}}',
  });
  expect(c.plans.free).toMatchObject({ rate_limit_per_second: 10, rate_limit_burst: 20 });
  expect(c.plans.paid).toMatchObject({
    rate_limit_per_second: 0,
    rate_limit_burst: 20,
    max_long_polls: 5,
  });
  expect(error({ RELAY_PLANS: '{"free":{"max_tokens":0}}' })).toBe(
    'RELAY_PLANS.free.max_tokens must be a positive whole number',
  );
  expect(error({ RELAY_PLANS: '{"free":{"rate_limit_per_second":-1}}' })).toBe(
    'RELAY_PLANS.free.rate_limit_per_second must be a non-negative whole number',
  );
});

test('RELAY_TRUST_PROXY: off by default; true, a hop count, or addresses and CIDRs', () => {
  expect(loadConfig({ RELAY_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  expect(loadConfig({ RELAY_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  expect(loadConfig({ RELAY_TRUST_PROXY: '1' }).trustProxy).toBe(1);
  expect(loadConfig({ RELAY_TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toEqual([
    '10.0.0.0/8',
    'loopback',
  ]);
  expect(error({ RELAY_TRUST_PROXY: 'the ingress' })).toBe(
    'RELAY_TRUST_PROXY must be true, a hop count, or addresses/CIDRs separated by commas; "the ingress" is none',
  );
});
