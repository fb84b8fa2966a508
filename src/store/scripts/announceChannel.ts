/** lua/announce_channel.lua: publish a channel's coalesced new_message once its window ended. */
import { defineScript } from './define';

export interface AnnounceChannelArgs {
  channel: string;
  fanout_window_ms: number;
}

export const announceChannelScript = defineScript<AnnounceChannelArgs>({
  name: 'announce_channel',
  keys: ['account', 'channel'],
  argv: ['channel', 'fanout_window_ms'],
});

/** null when nothing is pending any more, else the ms until the window ends */
export type AnnounceChannelReply = number | null;
