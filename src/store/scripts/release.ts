/** lua/release.lua: give leases back at once, their attempts not counted. */
import { defineScript } from './define';

export interface ReleaseArgs {
  channel: string;
}

/** The lease ids follow as the tail. */
export const releaseScript = defineScript<ReleaseArgs>({
  name: 'release',
  keys: ['account', 'channel'],
  argv: ['channel'],
});

/** released_count */
export type ReleaseReply = number;
