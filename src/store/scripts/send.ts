/** lua/send.lua: store messages in a channel for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface SendArgs extends CallerArgs {
  channel: string;
  /** the number of messages; 8 values each follow, then fanout_window_ms */
  n: number;
}

export const sendScript = defineScript<SendArgs>({
  name: 'send',
  keys: ['account', 'channel', 'caller'],
  argv: ['token_id', 'proof', 'rate', 'channel', 'n'],
});

/** [ids in request order, lowered due ms or null, ms until a coalesced announcement or null] */
export type SendReply = [string[], number | null, number | null];
