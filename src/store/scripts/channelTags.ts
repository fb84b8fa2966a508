/** lua/channel_tags.lua: change and read a channel's tags in one step. */
import { defineScript } from './define';

export interface ChannelTagsArgs {
  channel: string;
  max_tags: number;
  /** the number of keys to remove; they follow, then the key, value pairs to set */
  remove_count: number;
}

export const channelTagsScript = defineScript<ChannelTagsArgs>({
  name: 'channel_tags',
  keys: ['account', 'tags'],
  argv: ['channel', 'max_tags', 'remove_count'],
});

/** [key, value, ...] sorted by key */
export type ChannelTagsReply = string[];
