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
  lease_id: string;
  outcome: 'ok' | 'gone' | 'fail';
  retry_after_ms: number | '';
  failure: string;
  entry: string;
  log_max: number;
  cooldown_ms: number;
  disable_after_ms: number;
  dead_letter_channel: string;
  /** the destination's attempt number, for the channel's history */
  attempt: number;
  duration_ms: number;
  /** the receiver's HTTP status, '' when there was no answer */
  status: number | '';
}

export const destinationResultScript = defineScript<DestinationResultArgs>({
  name: 'destination_result',
  keys: ['account', 'channel', 'destination', 'history', 'deadLetter'],
  argv: [
    'channel',
    'id',
    'lease_id',
    'outcome',
    'retry_after_ms',
    'failure',
    'entry',
    'log_max',
    'cooldown_ms',
    'disable_after_ms',
    'dead_letter_channel',
    'attempt',
    'duration_ms',
    'status',
  ],
});

/** [result, delay ms, lowered due ms or null, breaker opened for ms] */
export type DestinationResultReply = [
  'acked' | 'retry' | 'dead' | 'dead_lettered' | 'disabled' | 'stale',
  number,
  number | null,
  number,
];
