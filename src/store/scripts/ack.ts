/** lua/ack.lua: acknowledge and retry leases for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface AckArgs extends CallerArgs {
  channel: string;
  /** '1': refuse a channel that does not exist (CHANNEL_NOT_FOUND) */
  must_exist: '0' | '1';
  /** the dead-letter channel whose keys are passed ('' for none) */
  dead_letter_channel: string;
  /** the number of lease ids; they follow, then the retries' count and pairs */
  a: number;
}

export const ackScript = defineScript<AckArgs>({
  name: 'ack',
  keys: ['account', 'channel', 'caller', 'history', 'deadLetter'],
  argv: ['token_id', 'proof', 'rate', 'channel', 'must_exist', 'dead_letter_channel', 'a'],
});

/** [acked, retried, lowered due ms or null] */
export type AckReply = [number, number, number | null];
