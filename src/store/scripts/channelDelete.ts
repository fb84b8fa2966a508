/** lua/channel_delete.lua: delete a channel with its messages, settings, tags and webhooks. */
import { defineScript } from './define';

export interface ChannelDeleteArgs {
  channel: string;
}

/** Its calls pass the webhooks group (webhooks: true). */
export const channelDeleteScript = defineScript<ChannelDeleteArgs>({
  name: 'channel_delete',
  keys: ['account', 'channel', 'webhooks', 'tags', 'history'],
  argv: ['channel'],
});

/** the messages deleted */
export type ChannelDeleteReply = number;
