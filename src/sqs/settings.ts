/**
 * The channel settings SQS reads as queue attributes, with their defaults:
 * SQS's defaults where the relay has no setting of its own.
 */
import { LIMITS } from '../schemas/requests';
import type { ChannelStats, PlanLimits } from '../store/types';

export interface QueueDefaults {
  visibilityTimeoutMs: number;
  delaySeconds: number;
  receiveWaitSeconds: number;
  retentionSeconds: number;
}

type Settings = Partial<{
  visibility_timeout_ms: number | null;
  delay_seconds: number | null;
  retention_seconds: number | null;
  receive_wait_seconds: number | null;
}>;

export function queueDefaults(stats: ChannelStats, limits: PlanLimits): QueueDefaults {
  const config = stats.config as Settings;
  return {
    visibilityTimeoutMs: config.visibility_timeout_ms ?? LIMITS.defaultVisibilityMs,
    delaySeconds: config.delay_seconds ?? 0,
    receiveWaitSeconds: config.receive_wait_seconds ?? 0,
    retentionSeconds: Math.min(config.retention_seconds ?? Infinity, limits.retention_seconds),
  };
}
