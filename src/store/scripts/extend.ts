/** lua/extend.lua: new lease deadlines for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface ExtendArgs extends CallerArgs {
  channel: string;
  /** '1': refuse a channel that does not exist (CHANNEL_NOT_FOUND) */
  must_exist: '0' | '1';
  /** '' for the channel's setting, else the default; the lease ids follow */
  visibility_timeout_ms: number | '';
}

export const extendScript = defineScript<ExtendArgs>({
  name: 'extend',
  keys: ['account', 'channel', 'caller'],
  argv: ['token_id', 'proof', 'rate', 'channel', 'must_exist', 'visibility_timeout_ms'],
});

/** [extended, lowered due ms or null] */
export type ExtendReply = [number, number | null];
