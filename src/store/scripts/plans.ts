/**
 * The plan prelude: the configured plans compiled into every script's source at start-up
 * (`local PLANS = {...}` and DEFAULT_PLAN), so that a script finds the limits of the
 * account's plan itself and a request needs no call to learn them. Pods with the same
 * configuration load the same source, so they share the scripts' SHAs.
 */
import { DEFAULT_PLANS, type Plans } from '../../config/plans';
import type { PlanLimits } from '../../types';

/** A rate with its burst as a fixed window: at most limit requests per windowMs. */
export interface RateWindow {
  /** requests allowed per window; 0: not limited */
  limit: number;
  windowMs: number;
}

/** A rate with its burst as a fixed window: at most burst requests per burst/rate seconds. */
export function rateWindow(perSecond: number, burst: number): RateWindow {
  if (perSecond <= 0) return { limit: 0, windowMs: 1 };
  const limit = burst > 0 ? burst : Math.max(1, perSecond);
  return { limit, windowMs: Math.max(1, Math.round((1000 * limit) / perSecond)) };
}

const STORAGE_CEILING = 1_048_576;
/** Room for a webhook message's metadata (its headers, at most 16 KB, JSON-escaped). */
const WEBHOOK_METADATA_ROOM = 65_536;
/** Room for the JSON around an SQS message's 10 attributes (names, types, keys). */
const SQS_METADATA_ROOM = 65_536;

/**
 * The storage layer's ceiling on one message's size: 1 MiB, or more for a plan whose webhook
 * bodies or SQS messages may be larger. A webhook body is stored as JSON text, which at most
 * doubles it (src/webhooks/message.ts keeps anything that would grow more as base64), and a
 * message's size is what is stored; so is an SQS message, whose body and attribute values
 * JSON escaping at most doubles.
 */
export function storageCeiling(limits: PlanLimits): number {
  return Math.max(
    STORAGE_CEILING,
    2 * limits.max_webhook_bytes + WEBHOOK_METADATA_ROOM,
    2 * limits.max_sqs_message_bytes + SQS_METADATA_ROOM,
  );
}

/** What the scripts read of a plan: its limits and the figures derived from them. */
function planRow(limits: PlanLimits): Record<string, number> {
  const rate = rateWindow(limits.rate_limit_per_second, limits.rate_limit_burst);
  return {
    ...limits,
    retention_ms: limits.retention_seconds * 1000,
    storage_ceiling: storageCeiling(limits),
    rate_limit: rate.limit,
    rate_window_ms: rate.windowMs,
  };
}

export interface PlanTable {
  plans: Plans;
  defaultPlan: string;
}

export const DEFAULT_PLAN_TABLE: PlanTable = { plans: DEFAULT_PLANS, defaultPlan: 'free' };

/** The Lua source of the prelude. Plan names are [A-Za-z0-9_-] (config/plans.ts). */
export function planPrelude({ plans, defaultPlan }: PlanTable): string {
  if (!Object.prototype.hasOwnProperty.call(plans, defaultPlan)) {
    throw new Error(`the default plan ${defaultPlan} is not among the plans`);
  }
  const rows = Object.entries(plans).map(([name, limits]) => {
    const fields = Object.entries(planRow(limits)).map(([k, v]) => `${k} = ${Number(v)}`);
    return `  [${JSON.stringify(name)}] = { ${fields.join(', ')} },`;
  });
  return `-- The configured plans (src/store/scripts/plans.ts)\nlocal PLANS = {\n${rows.join('\n')}\n}\nlocal DEFAULT_PLAN = ${JSON.stringify(defaultPlan)}\n`;
}
