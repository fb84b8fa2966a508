/** lua/ack.lua: acknowledge and retry leases for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface AckArgs extends CallerArgs {
  channel: string;
  /** the dead-letter channel whose keys are passed ('' for none) */
  dead_letter_channel: string;
  /** the number of lease ids; they follow, then the retries' count and pairs */
  a: number;
}

export const ackScript = defineScript<AckArgs>({
  name: 'ack',
  keys: ['account', 'channel', 'caller', 'deadLetter'],
  argv: ['token_id', 'proof', 'rate', 'channel', 'dead_letter_channel', 'a'],
});

/** [acked, retried, lowered due ms or null] */
export type AckReply = [number, number, number | null];
