/** lua/sweep_channel.lua and lua/due_channels.lua: the sweeper's work on one account. */
import { defineScript } from './define';

export interface DueChannelsArgs {
  limit: number;
}

export const dueChannelsScript = defineScript<DueChannelsArgs>({
  name: 'due_channels',
  keys: ['account'],
  argv: ['limit'],
});

/** [channel, dead-letter channel ('' for none), ...] */
export type DueChannelsReply = string[];

export interface SweepChannelArgs {
  channel: string;
  /** the one whose keys are passed as the target group ('' for none: the channel's own) */
  dead_letter_channel: string;
  limit: number;
  fanout_window_ms: number;
}

export const sweepChannelScript = defineScript<SweepChannelArgs>({
  name: 'sweep_channel',
  keys: ['account', 'channel', 'target', 'history'],
  argv: ['channel', 'dead_letter_channel', 'limit', 'fanout_window_ms'],
});

/**
 * [account's next due ms or null, requeued, dead-lettered, discarded, expired,
 * ms until a coalesced new_message or null]
 */
export type SweepChannelReply = [number | null, number, number, number, number, number | null];
