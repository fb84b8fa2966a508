/** lua/channel_purge.lua: delete every message of a channel, keeping the channel. */
import { defineScript } from './define';

export interface ChannelPurgeArgs {
  channel: string;
}

export const channelPurgeScript = defineScript<ChannelPurgeArgs>({
  name: 'channel_purge',
  keys: ['account', 'channel', 'history', 'destination'],
  argv: ['channel'],
});

/** purged_count */
export type ChannelPurgeReply = number;
