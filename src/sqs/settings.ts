/**
 * The channel settings SQS reads as queue attributes, as they are in effect
 * (a setting never set follows its default: the relay's, which are SQS's), and
 * the named channel settings the SQS endpoint owns.
 */
import { effectiveConfig, type ChannelConfig, type ChannelStats, type SizeCap } from '../relay';
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

/** The named channel settings of queue attributes the relay has no setting of its own for. */
export const NAMED_SETTINGS = {
  /** MaximumMessageSize (bytes); the send script enforces it */
  MaximumMessageSize: 'sqs_max_bytes',
  SqsManagedSseEnabled: 'sqs_sse',
  KmsMasterKeyId: 'sqs_kms_key',
  KmsDataKeyReusePeriodSeconds: 'sqs_kms_reuse',
} as const;

/** The queue's MaximumMessageSize: its setting, within the plan's max_sqs_message_bytes. */
export function maxMessageSize(config: ChannelConfig, limits: PlanLimits): number {
  const plan = limits.max_sqs_message_bytes;
  const set = Number(config.named[NAMED_SETTINGS.MaximumMessageSize]);
  return Number.isInteger(set) && set > 0 ? Math.min(set, plan) : plan;
}

/** The send script's cap on SQS messages: the plan's size, lowered by the queue's MaximumMessageSize. */
export function sqsSizeCap(sizes: number[]): SizeCap {
  return { planLimit: 'max_sqs_message_bytes', setting: NAMED_SETTINGS.MaximumMessageSize, sizes };
}
