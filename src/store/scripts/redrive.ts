/** lua/redrive.lua and lua/dead_letter_sources.lua: move dead-lettered messages back. */
import { defineScript } from './define';

export interface RedriveArgs {
  /** the channel moved from */
  channel: string;
  target: string;
  /** the most messages to move */
  max: number;
  /** '1': move only messages dead-lettered from the target */
  only_from_target: '0' | '1';
  /** how many waiting messages to look at, at most */
  scan: number;
}

export const redriveScript = defineScript<RedriveArgs>({
  name: 'redrive',
  keys: ['account', 'channel', 'target'],
  argv: ['channel', 'target', 'max', 'only_from_target', 'scan'],
});

/** the messages moved */
export type RedriveReply = number;

export interface DeadLetterSourcesArgs {
  /** how many waiting messages to look at */
  scan: number;
}

export const deadLetterSourcesScript = defineScript<DeadLetterSourcesArgs>({
  name: 'dead_letter_sources',
  keys: ['account', 'channel'],
  argv: ['scan'],
});

/** the source channels, distinct, in order of first appearance */
export type DeadLetterSourcesReply = string[];
