/**
 * Turns what Redis or a script answered into an AppError. Script errors carry a
 * stable code as their first word (see each script's Errors section); anything
 * that says Redis is unreachable or not serving is a 503, safe to retry.
 */
import { AppError } from '../errors';
import type { PlanLimits } from './types';

const UNAVAILABLE_REPLIES = [
  'LOADING',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'MASTERDOWN',
  'READONLY',
  'BUSY',
];

export interface ScriptFailure {
  code: string;
  detail: string;
}

/**
 * Every code a script in lua/ answers with (each script's Errors section). Only
 * these are script failures: any other error reply (LOADING, BUSY, READONLY,
 * a WRONGTYPE inside a script, ...) is left to rethrowStoreError.
 */
export const SCRIPT_ERROR_CODES = [
  'ACCOUNT_EXISTS',
  'ACCOUNT_NOT_FOUND',
  'CHANNEL_LIMIT',
  'CHANNEL_NOT_FOUND',
  'MESSAGE_TOO_LARGE',
  'STALE_CONFIG',
  'STORAGE_LIMIT',
  'TOKEN_LIMIT',
  'TOKEN_NOT_FOUND',
  'WEBHOOK_LIMIT',
  'WEBHOOK_NOT_FOUND',
] as const;

const SCRIPT_ERROR = new RegExp(`(?:^|\\s)(${SCRIPT_ERROR_CODES.join('|')})(?: ([^\\n]*))?$`);

/** The code and detail of an error reply from one of our scripts, or null. */
export function scriptFailure(err: unknown): ScriptFailure | null {
  if (!(err instanceof Error) || err.name !== 'ReplyError') return null;
  // "CODE detail"; Redis 7 prefixes "ERR " to a reply with no space in it ("ERR ACCOUNT_EXISTS");
  // an error raised inside a script reads "ERR Error running script ... user_script:N: CODE detail".
  const match = SCRIPT_ERROR.exec(err.message.trim());
  if (!match) return null;
  return { code: match[1], detail: match[2] ?? '' };
}

const CONNECTION_ERROR =
  /Connection is closed|Stream isn't writeable|Command timed out|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|enableOfflineQueue|None of startup nodes|Cluster isn't ready|Failed to refresh slots|connect ETIMEDOUT|socket closed/i;

/** True when the error says Redis could not be reached or is not serving. */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ReplyError') {
    const first = err.message.split(' ')[0];
    return UNAVAILABLE_REPLIES.includes(first);
  }
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError') return true;
  return CONNECTION_ERROR.test(err.message);
}

export function unavailable(): AppError {
  return new AppError(
    'UNAVAILABLE',
    'the queue store is unavailable; the request had no effect and may be retried',
  );
}

/** Re-throws anything that is not one of our script codes as an AppError or as is. */
export function rethrowStoreError(err: unknown): never {
  if (err instanceof AppError) throw err;
  if (isUnavailable(err)) throw unavailable();
  throw err;
}

/** The refusals a plan limit or a vanished account cause, worded alike for every operation. */
export const limitErrors = {
  accountGone: () => new AppError('UNAUTHORIZED', "the token's account no longer exists"),
  channels: (limits: PlanLimits) =>
    new AppError(
      'FORBIDDEN',
      `channel limit reached: the plan allows at most ${limits.max_channels} channels`,
    ),
};
