/**
 * A channel as the API shows it: each setting as it is in effect, so a setting
 * that was never set (or was reset with null) shows its default.
 */
import { LIMITS } from '../schemas/requests';
import { HISTORY_SETTING } from '../store/historySetting';
import type { ChannelConfig, ChannelStats, PlanLimits } from '../store/types';

export interface EffectiveConfig extends Omit<
  ChannelConfig,
  'visibility_timeout_ms' | 'delay_seconds' | 'retention_seconds' | 'receive_wait_seconds' | 'named'
> {
  visibility_timeout_ms: number;
  delay_seconds: number;
  retention_seconds: number;
  receive_wait_seconds: number;
  /** 0: no history */
  history_seconds: number;
  /** docs/api/groups.md */
  group_order: 'strict' | 'fair';
  fifo: boolean;
}

export function effectiveConfig(config: ChannelConfig, limits: PlanLimits): EffectiveConfig {
  // named settings are shown by the features that own them, each under its own name
  const { named, ...settings } = config;
  return {
    ...settings,
    group_order: named.group_order === 'fair' ? 'fair' : 'strict',
    fifo: named.fifo === '1',
    visibility_timeout_ms: config.visibility_timeout_ms ?? LIMITS.defaultVisibilityMs,
    delay_seconds: config.delay_seconds ?? 0,
    receive_wait_seconds: config.receive_wait_seconds ?? 0,
    history_seconds: Number(config.named[HISTORY_SETTING] ?? 0),
    // A plan lowered below the channel's setting wins (the send script applies the smaller).
    retention_seconds: Math.min(
      config.retention_seconds ?? limits.retention_seconds,
      limits.retention_seconds,
    ),
  };
}

export type ChannelView = Omit<ChannelStats, 'config' | 'created_ms'> & { config: EffectiveConfig };

export function channelView(stats: ChannelStats, limits: PlanLimits): ChannelView {
  // created_ms is for the SQS endpoint's CreatedTimestamp; the relay API does not show it
  const { created_ms: _created, ...shown } = stats;
  return { ...shown, config: effectiveConfig(stats.config, limits) };
}
