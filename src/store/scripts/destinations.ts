/** The push destination scripts (lua/destination_*.lua): one typed spec each. */
import { defineScript } from './define';

export interface DestinationSaveArgs {
  channel: string;
  id: string;
  mode: 'create' | 'update';
  /** the settings JSON, '' to keep them */
  config: string;
  state: '' | 'active' | 'paused';
  /** a new signing secret, '' to keep it */
  secret: string;
  /** how long a replaced secret still signs (ms) */
  previous_ms: number;
}

export const destinationSaveScript = defineScript<DestinationSaveArgs>({
  name: 'destination_save',
  keys: ['account', 'destination'],
  argv: ['channel', 'id', 'mode', 'config', 'state', 'secret', 'previous_ms'],
});

/** [created ms, state] */
export type DestinationSaveReply = [number, string];

export interface DestinationDeleteArgs {
  channel: string;
  id: string;
}

export const destinationDeleteScript = defineScript<DestinationDeleteArgs>({
  name: 'destination_delete',
  keys: ['account', 'channel', 'destination'],
  argv: ['channel', 'id'],
});

export interface DestinationRedriveArgs {
  channel: string;
  id: string;
  max: number;
}

export const destinationRedriveScript = defineScript<DestinationRedriveArgs>({
  name: 'destination_redrive',
  keys: ['account', 'channel', 'destination'],
  argv: ['channel', 'id', 'max'],
});

export interface DestinationTakeArgs {
  channel: string;
  id: string;
  max: number;
  nonces: string;
}

export const destinationTakeScript = defineScript<DestinationTakeArgs>({
  name: 'destination_take',
  keys: ['account', 'channel', 'destination', 'history'],
  argv: ['channel', 'id', 'max', 'nonces'],
});

/** [status, wait ms, flat lease id, record, attempt, ..., lowered due ms or null] */
export type DestinationTakeReply = [
  'ok' | 'idle' | 'wait' | 'gone',
  number,
  (string | number)[],
  number | null,
];

export interface DestinationResultArgs {
  channel: string;
  id: string;
  log_max: number;
  cooldown_ms: number;
  disable_after_ms: number;
  dead_letter_channel: string;
  /** most messages to lease after recording (0: none) */
  take_max: number;
  /** take_max nonces of 22 characters, concatenated */
  nonces: string;
  /** the number of outcomes; 8 values each follow (destinationResultTail) */
  n: number;
}

export const destinationResultScript = defineScript<DestinationResultArgs>({
  name: 'destination_result',
  keys: ['account', 'channel', 'destination', 'history', 'deadLetter'],
  argv: [
    'channel',
    'id',
    'log_max',
    'cooldown_ms',
    'disable_after_ms',
    'dead_letter_channel',
    'take_max',
    'nonces',
    'n',
  ],
});

/** One outcome's 8 values in destination_result's ARGV tail. */
export interface DestinationResultOutcome {
  lease_id: string;
  outcome: 'ok' | 'gone' | 'fail';
  retry_after_ms: number | '';
  failure: string;
  entry: string;
  /** the destination's attempt number, for the channel's history */
  attempt: number;
  duration_ms: number;
  /** the receiver's HTTP status, '' when there was no answer */
  status: number | '';
}

export function destinationResultTail(
  outcomes: readonly DestinationResultOutcome[],
): (string | number)[] {
  const tail: (string | number)[] = [];
  for (const o of outcomes)
    tail.push(
      o.lease_id,
      o.outcome,
      o.retry_after_ms,
      o.failure,
      o.entry,
      o.attempt,
      o.duration_ms,
      o.status,
    );
  return tail;
}

/**
 * [flat result, delay ms, breaker opened for ms per outcome, lowered due ms or null, then the
 * lease's status, wait ms and flat lease id, record, attempt, ... as destination_take's]
 */
export type DestinationResultReply = [
  ('acked' | 'retry' | 'dead' | 'dead_lettered' | 'disabled' | 'stale' | number)[],
  number | null,
  DestinationTakeReply[0],
  number,
  (string | number)[],
];
