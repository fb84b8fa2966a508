/** The plans (docs/operator.md, "Plans"): their limits, the defaults, and RELAY_PLANS overrides. */
import { ConfigError } from './setting';

/** Every plan limit with what the reference says about it: add a limit here, once. */
export const PLAN_LIMITS = {
  max_storage_bytes: 'bytes of stored messages (body + metadata JSON) over all channels',
  max_channels: 'channels that exist at once',
  retention_seconds: 'how long a message is kept before it is deleted, whatever its state',
  rate_limit_per_second:
    'requests per second of the whole account, across pods and tokens (0: unlimited; default `RELAY_RATE_LIMIT_PER_SECOND`)',
  rate_limit_burst:
    "requests the account may make at once before the rate applies (0: one second's worth; default `RELAY_RATE_LIMIT_BURST`)",
  max_tokens: 'tokens the account may hold (dashboard sessions not counted)',
  max_websocket_connections: 'open WebSocket connections of the account, across pods',
  max_long_polls: 'concurrent long-poll waits (pulls with `wait_ms`) of the account, across pods',
  max_webhook_bytes: 'largest request body a webhook URL of the account accepts (bytes)',
  webhook_refusals_per_second:
    'refused deliveries (a signature that does not verify, a body over max_webhook_bytes) each webhook URL answers per second with their reason; beyond it a 429, with nothing noted (0: unlimited). Refusals never count against the account rate',
  max_sqs_message_bytes:
    "largest message sent through the SQS endpoint, counted as SQS counts it: body plus message attributes' names, types and values (bytes; 1024 to 1048576; a queue's `MaximumMessageSize` may lower it)",
  max_history_seconds:
    "the most a channel's `history_seconds` may be: how long a message's record is kept after it ends (0: no history)",
} as const;

export const DEFAULT_MAX_WEBHOOK_BYTES = 1_048_576;
/** SQS's own default for MaximumMessageSize (256 KiB) */
export const DEFAULT_MAX_SQS_MESSAGE_BYTES = 262_144;

export type Plan = Record<keyof typeof PLAN_LIMITS, number>;
export type Plans = Readonly<Record<string, Readonly<Plan>>>;

/** The limits a plan need not set: RELAY_RATE_LIMIT_* give the rate of plans that set none. */
export interface PlanDefaults {
  rate_limit_per_second: number;
  rate_limit_burst: number;
}

function defaultPlans(d: PlanDefaults): Record<string, Plan> {
  const common = {
    ...d,
    max_tokens: 100,
    max_long_polls: 1000,
    max_webhook_bytes: DEFAULT_MAX_WEBHOOK_BYTES,
    webhook_refusals_per_second: 10,
    max_sqs_message_bytes: DEFAULT_MAX_SQS_MESSAGE_BYTES,
  };
  return {
    free: {
      max_storage_bytes: 10_000_000,
      max_channels: 5,
      retention_seconds: 3 * 86400,
      ...common,
      max_history_seconds: 86400,
      max_websocket_connections: 1000,
    },
    paid: {
      max_storage_bytes: 100_000_000,
      max_channels: 100,
      retention_seconds: 14 * 86400,
      ...common,
      max_history_seconds: 2_592_000,
      max_websocket_connections: 10_000,
    },
  };
}

export const DEFAULT_PLANS: Plans = defaultPlans({ rate_limit_per_second: 0, rate_limit_burst: 0 });

const PLAN_FIELDS = Object.keys(PLAN_LIMITS) as (keyof Plan)[];
/** Limits every new plan must set; the others default to the free plan's. */
const REQUIRED_FIELDS: (keyof Plan)[] = ['max_storage_bytes', 'max_channels', 'retention_seconds'];
/** Limits where 0 means "unlimited" (rate) or "one second's worth" (burst). */
const ZERO_ALLOWED = new Set<keyof Plan>([
  'rate_limit_per_second',
  'rate_limit_burst',
  'webhook_refusals_per_second',
  'max_history_seconds',
]);
/** SQS's MaximumMessageSize range: 1 KiB to 1 MiB (SQS's most since 2025). */
export const SQS_MESSAGE_BYTES_RANGE: readonly [number, number] = [1024, 1_048_576];
/** Limits with bounds of their own. */
const BOUNDED: Partial<Record<keyof Plan, readonly [number, number]>> = {
  max_sqs_message_bytes: SQS_MESSAGE_BYTES_RANGE,
};

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
      const bounds = BOUNDED[field as keyof Plan];
      if (bounds && (value < bounds[0] || value > bounds[1])) {
        throw new ConfigError(
          `RELAY_PLANS.${name}.${field} must be from ${bounds[0]} to ${bounds[1]}`,
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
