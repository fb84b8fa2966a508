/** lua/pull.lua: lease available messages for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface PullArgs extends CallerArgs {
  channel: string;
  /** '1': refuse a channel that does not exist (CHANNEL_NOT_FOUND) */
  must_exist: '0' | '1';
  /** '' for the channel's setting, else the default */
  visibility_timeout_ms: number | '';
  batch_size: number;
  /** batch_size random strings of 22 characters, concatenated */
  nonces: string;
  /** the dead-letter channel whose keys are passed ('' for none) */
  dead_letter_channel: string;
  /** '' or the SQS ReceiveRequestAttemptId: a retry within 5 minutes returns the same leases */
  attempt_id: string;
}

export const pullScript = defineScript<PullArgs>({
  name: 'pull',
  keys: ['account', 'channel', 'caller', 'history', 'deadLetter'],
  argv: [
    'token_id',
    'proof',
    'rate',
    'channel',
    'must_exist',
    'visibility_timeout_ms',
    'batch_size',
    'nonces',
    'dead_letter_channel',
    'attempt_id',
  ],
});

/**
 * [backlog, [lease id, record, ...], lowered due ms or null, discarded, dead-lettered, expired,
 * the channel's receive_wait_ms or null]
 */
export type PullReply = [number, string[], number | null, number, number, number, number | null];
