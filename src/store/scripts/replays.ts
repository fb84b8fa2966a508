/** lua/replay_*.lua: a channel's bulk replay jobs (src/store/replays.ts). */
import { defineScript } from './define';

export interface ReplayClaimArgs {
  /** the claiming pod's id */
  pod: string;
  lease_ms: number;
}

export const replayClaimScript = defineScript<ReplayClaimArgs>({
  name: 'replay_claim',
  keys: ['replay'],
  argv: ['pod', 'lease_ms'],
});

/** the job json to run now; null: another pod holds the lease; [null]: no job left */
export type ReplayClaimReply = string | [null] | null;

export interface ReplayProgressArgs {
  pod: string;
  job_id: string;
  /** matched messages passed in this step */
  passed: number;
  /** copies stored in this step */
  replayed: number;
  lease_ms: number;
}

export const replayProgressScript = defineScript<ReplayProgressArgs>({
  name: 'replay_progress',
  keys: ['replay'],
  argv: ['pod', 'job_id', 'passed', 'replayed', 'lease_ms'],
});

export interface ReplayCancelArgs {
  job_id: string;
}

export const replayCancelScript = defineScript<ReplayCancelArgs>({
  name: 'replay_cancel',
  keys: ['replay'],
  argv: ['job_id'],
});
