/**
 * Turns what Redis or a script answered into an AppError. Script errors carry a
 * stable code as their first word (see each script's Errors section); anything
 * that says Redis is unreachable or not serving is a 503, safe to retry.
 */
import { AppError } from '../errors';

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

/** The code and detail of an error reply from one of our scripts, or null. */
export function scriptFailure(err: unknown): ScriptFailure | null {
  if (!(err instanceof Error) || err.name !== 'ReplyError') return null;
  // ioredis wraps script errors as "ERR Error running script ... user_script:N: CODE detail"
  // or, for redis.error_reply, just "CODE detail".
  // A one-word code (redis.error_reply('CHANNEL_NOT_FOUND')) reaches us as "ERR CHANNEL_NOT_FOUND".
  const text = err.message.trim().replace(/^ERR (?=[A-Z][A-Z_]+(?: |$))/, '');
  const match = /(?:^|\s)([A-Z][A-Z_]+)(?: ([^\n]*))?$/.exec(text);
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
