/** lua/holder_*.lua: leased places behind the concurrency limits (WebSockets, long polls). */
import { defineScript, type NoArgs } from './define';

export interface HolderAcquireArgs {
  holder_id: string;
  /** the most holders at once */
  cap: number;
  lease_ms: number;
}

export const holderAcquireScript = defineScript<HolderAcquireArgs>({
  name: 'holder_acquire',
  keys: ['holders'],
  argv: ['holder_id', 'cap', 'lease_ms'],
});

/** [1 taken | 0 the cap is reached, holders now] */
export type HolderAcquireReply = [number, number];

/** The holder ids follow as the tail; the reply is how many places were given back. */
export const holderReleaseScript = defineScript<NoArgs>({
  name: 'holder_release',
  keys: ['holders'],
  argv: [],
});

export interface HolderRefreshArgs {
  lease_ms: number;
}

/** The holder ids follow as the tail; the reply is how many of them were still held. */
export const holderRefreshScript = defineScript<HolderRefreshArgs>({
  name: 'holder_refresh',
  keys: ['holders'],
  argv: ['lease_ms'],
});
