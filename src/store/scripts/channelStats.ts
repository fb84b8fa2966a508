/** lua/channel_stats.lua: a channel's counts and configuration. Reads only. */
import { defineScript } from './define';

export interface ChannelStatsArgs {
  channel: string;
}

export const channelStatsScript = defineScript<ChannelStatsArgs>({
  name: 'channel_stats',
  keys: ['account', 'channel', 'destination'],
  argv: ['channel'],
});

/**
 * [queued, delayed, in_flight, storage bytes, oldest message ms or null, config string,
 * expiring within 1 h, now ms, message groups (docs/api/groups.md), blocked groups, dead count
 * (its push destination's dead messages)], or null when there is no such channel
 */
export type ChannelStatsReply =
  | [number, number, number, number, number | null, string, number, number, number, number, number]
  | null;
