/** The plans (spec 8): their limits, the defaults, and RELAY_PLANS overrides. */
import { ConfigError } from './configSetting';

/** Every plan limit with what the reference says about it: add a limit here, once. */
export const PLAN_LIMITS = {
  max_storage_bytes: 'bytes of stored messages (body + metadata JSON) over all channels',
  max_channels: 'channels that exist at once',
  retention_seconds: 'how long a message is kept before it is deleted, whatever its state',
} as const;

export type Plan = Record<keyof typeof PLAN_LIMITS, number>;
export type Plans = Readonly<Record<string, Readonly<Plan>>>;

export const DEFAULT_PLANS: Plans = {
  free: { max_storage_bytes: 10_000_000, max_channels: 5, retention_seconds: 3 * 86400 },
  paid: { max_storage_bytes: 100_000_000, max_channels: 100, retention_seconds: 14 * 86400 },
};

const PLAN_FIELDS = Object.keys(PLAN_LIMITS) as (keyof Plan)[];

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
