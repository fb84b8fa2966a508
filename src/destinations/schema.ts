/**
 * The destination settings a request may give (docs/api/destinations.md): each bad value is a
 * 400 naming its field, checked before anything is written.
 */
import { invalidField } from '../errors';
import type { DestinationConfig } from '../relay';

/** Svix's schedule: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts, about 27 h). */
export const DEFAULT_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 120_000;
const MAX_SCHEDULE_ENTRIES = 20;
const MAX_STEP_SECONDS = 86_400;
const MAX_ATTEMPTS = 1000;
const MAX_HEADERS = 50;

/** Headers a destination may not set: hop-by-hop ones, Host, and those the request is framed by. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface DestinationInput {
  config: DestinationConfig;
  paused: boolean;
}

export interface DestinationPatch {
  config: DestinationConfig;
  paused?: boolean;
  state?: 'active';
  rotateSecret: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalidField(`${field} must be an integer from ${min} to ${max}`);
  return value;
}

function url(value: unknown): string {
  let parsed: URL;
  try {
    if (typeof value !== 'string') throw new Error();
    parsed = new URL(value);
  } catch {
    throw invalidField('url must be an absolute http:// or https:// URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw invalidField('url must be an absolute http:// or https:// URL');
  if (parsed.username || parsed.password) throw invalidField('url must not contain credentials');
  return parsed.toString();
}

function headers(value: unknown): Record<string, string> {
  if (!isObject(value)) throw invalidField('headers must be an object of header names to strings');
  const out: Record<string, string> = {};
  const names = Object.keys(value);
  if (names.length > MAX_HEADERS)
    throw invalidField(`headers may have at most ${MAX_HEADERS} entries`);
  for (const name of names) {
    const v = value[name];
    if (!TOKEN.test(name)) throw invalidField(`headers.${name} is not a valid header name`);
    if (FORBIDDEN_HEADERS.has(name.toLowerCase()))
      throw invalidField(`headers.${name} may not be set (a hop-by-hop header, Host or framing)`);
    if (typeof v !== 'string' || /[\r\n\0]/.test(v))
      throw invalidField(`headers.${name} must be a string without line breaks`);
    out[name] = v;
  }
  return out;
}

function retry(value: unknown): DestinationConfig['retry'] {
  if (!isObject(value)) throw invalidField('retry must be an object');
  for (const key of Object.keys(value))
    if (key !== 'schedule_seconds' && key !== 'max_attempts')
      throw invalidField(`retry.${key} is not a retry setting (schedule_seconds, max_attempts)`);
  let schedule = DEFAULT_SCHEDULE_SECONDS;
  if (value.schedule_seconds !== undefined) {
    const s = value.schedule_seconds;
    if (!Array.isArray(s) || s.length === 0)
      throw invalidField('retry.schedule_seconds must be a non-empty array of seconds');
    if (s.length > MAX_SCHEDULE_ENTRIES)
      throw invalidField(`retry.schedule_seconds may have at most ${MAX_SCHEDULE_ENTRIES} entries`);
    schedule = s.map((step, i) =>
      integerIn(step, `retry.schedule_seconds[${i}]`, 0, MAX_STEP_SECONDS),
    );
  }
  const maxAttempts =
    value.max_attempts === undefined
      ? schedule.length
      : integerIn(value.max_attempts, 'retry.max_attempts', 1, MAX_ATTEMPTS);
  return { schedule_seconds: schedule, max_attempts: maxAttempts };
}

function rateLimit(value: unknown): DestinationConfig['rate_limit'] {
  if (value === null) return null;
  if (!isObject(value))
    throw invalidField('rate_limit must be an object {count, period_seconds} or null');
  if (typeof value.count !== 'number' || !Number.isInteger(value.count) || value.count < 1)
    throw invalidField('rate_limit.count must be an integer of at least 1');
  if (value.count > 100_000) throw invalidField('rate_limit.count must be at most 100000');
  const period =
    value.period_seconds === undefined
      ? 1
      : integerIn(value.period_seconds, 'rate_limit.period_seconds', 1, 86_400);
  return { count: value.count, period_seconds: period };
}

const FIELDS = [
  'url',
  'headers',
  'timeout_ms',
  'signing',
  'retry',
  'rate_limit',
  'parallelism',
  'paused',
] as const;

/** The settings of a body over a base (the defaults, or the destination's current ones). */
function settings(body: Record<string, unknown>, base: DestinationConfig): DestinationConfig {
  const c = { ...base };
  if (body.url !== undefined) c.url = url(body.url);
  if (body.headers !== undefined) c.headers = headers(body.headers);
  if (body.timeout_ms !== undefined)
    c.timeout_ms = integerIn(body.timeout_ms, 'timeout_ms', 100, MAX_TIMEOUT_MS);
  if (body.signing !== undefined) {
    if (body.signing !== 'standard-webhooks' && body.signing !== 'none')
      throw invalidField('signing must be "standard-webhooks" or "none"');
    c.signing = body.signing;
  }
  if (body.retry !== undefined) c.retry = retry(body.retry);
  if (body.rate_limit !== undefined) c.rate_limit = rateLimit(body.rate_limit);
  if (body.parallelism !== undefined)
    c.parallelism = integerIn(body.parallelism, 'parallelism', 1, 1000);
  return c;
}

function paused(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidField('paused must be true or false');
  return value;
}

export function validateCreate(body: Record<string, unknown>): DestinationInput {
  for (const key of Object.keys(body))
    if (!(FIELDS as readonly string[]).includes(key))
      throw invalidField(`${key} is not a destination setting (${FIELDS.join(', ')})`);
  if (body.url === undefined) throw invalidField('url is required');
  const config = settings(body, {
    url: '',
    headers: {},
    timeout_ms: DEFAULT_TIMEOUT_MS,
    signing: 'standard-webhooks',
    retry: {
      schedule_seconds: DEFAULT_SCHEDULE_SECONDS,
      max_attempts: DEFAULT_SCHEDULE_SECONDS.length,
    },
    rate_limit: null,
    parallelism: 1,
  });
  return { config, paused: paused(body.paused) ?? false };
}

export function validatePatch(
  body: Record<string, unknown>,
  current: DestinationConfig,
): DestinationPatch {
  const known = [...FIELDS, 'state', 'rotate_secret'];
  for (const key of Object.keys(body))
    if (!known.includes(key))
      throw invalidField(`${key} is not a destination setting (${known.join(', ')})`);
  if (body.state !== undefined && body.state !== 'active')
    throw invalidField('state may only be set to "active" (use paused to pause)');
  if (body.rotate_secret !== undefined && typeof body.rotate_secret !== 'boolean')
    throw invalidField('rotate_secret must be true or false');
  return {
    config: settings(body, current),
    paused: paused(body.paused),
    state: body.state === 'active' ? 'active' : undefined,
    rotateSecret: body.rotate_secret === true,
  };
}

/** The request bodies' JSON Schemas, for the OpenAPI document (the checks above are the truth). */
const settingsSchema = {
  url: { type: 'string', description: 'absolute http:// or https:// URL' },
  headers: { type: 'object', additionalProperties: { type: 'string' } },
  timeout_ms: { type: 'integer', minimum: 100, maximum: MAX_TIMEOUT_MS },
  signing: { type: 'string', enum: ['standard-webhooks', 'none'] },
  retry: {
    type: 'object',
    additionalProperties: false,
    properties: {
      schedule_seconds: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_SCHEDULE_ENTRIES,
        items: { type: 'integer', minimum: 0, maximum: MAX_STEP_SECONDS },
      },
      max_attempts: { type: 'integer', minimum: 1, maximum: MAX_ATTEMPTS },
    },
  },
  rate_limit: {
    oneOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['count'],
        properties: {
          count: { type: 'integer', minimum: 1 },
          period_seconds: { type: 'integer', minimum: 1, maximum: 86400 },
        },
      },
    ],
  },
  parallelism: { type: 'integer', minimum: 1, maximum: 1000 },
  paused: { type: 'boolean' },
};

export const CREATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: settingsSchema,
};

export const PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...settingsSchema,
    state: { const: 'active', description: 're-enables a disabled destination' },
    rotate_secret: { type: 'boolean', description: 'a new secret; the old one signs too for 24 h' },
  },
};
