/**
 * The channel settings SQS reads as queue attributes, as they are in effect
 * (a setting never set follows its default: the relay's, which are SQS's).
 */
import { effectiveConfig, type ChannelStats } from '../relay';
import type { PlanLimits } from '../types';

export interface QueueDefaults {
  visibilityTimeoutMs: number;
  delaySeconds: number;
  receiveWaitSeconds: number;
  retentionSeconds: number;
}

export function queueDefaults(stats: ChannelStats, limits: PlanLimits): QueueDefaults {
  const config = effectiveConfig(stats.config, limits);
  return {
    visibilityTimeoutMs: config.visibility_timeout_ms,
    delaySeconds: config.delay_seconds,
    receiveWaitSeconds: config.receive_wait_seconds,
    retentionSeconds: config.retention_seconds,
  };
}
