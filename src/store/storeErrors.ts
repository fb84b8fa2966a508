/**
 * Turns what Redis or a script answered into a RelayError (src/errors.ts). Script errors carry a
 * stable code as their first word (see each script's Errors section); anything
 * that says Redis is unreachable or not serving is a 503, safe to retry.
 */
import { RelayError, plural, rateLimited, unavailable } from '../errors';

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
  'ACCOUNT_GONE',
  'ACCOUNT_NOT_FOUND',
  'AUTH_INVALID',
  'CHANNEL_LIMIT',
  'CHANNEL_NOT_FOUND',
  'CHANNEL_SCOPE',
  'DESTINATION_EXISTS',
  'DESTINATION_NOT_FOUND',
  'GROUP_ORDER_BUSY',
  'GROUP_REQUIRED',
  'MESSAGE_TOO_LARGE',
  'RATE_LIMITED',
  'ROUTE_CHAIN',
  'ROUTES_CHANGED',
  'REPLAY_NOT_FOUND',
  'SESSION_ENDED',
  'SESSION_EXPIRED',
  'SIZE_LIMIT',
  'STALE_CONFIG',
  'STORAGE_LIMIT',
  'TAG_LIMIT',
  'TOKEN_EXPIRED',
  'TOKEN_LIMIT',
  'TOKEN_NOT_FOUND',
  'WEBHOOK_LIMIT',
  'WEBHOOK_NOT_FOUND',
] as const;

export type ScriptErrorCode = (typeof SCRIPT_ERROR_CODES)[number];

/**
 * What a script's error code means to the client: one entry, one message per code, from
 * the detail words the script answers with (each script's Errors section) and what the
 * call was about. STALE_CONFIG and ROUTES_CHANGED are not here: the store retries (with the
 * right keys; with the routes as they are now).
 */
export const SCRIPT_ERRORS: Record<
  Exclude<ScriptErrorCode, 'STALE_CONFIG' | 'ROUTES_CHANGED'>,
  (detail: string[], about: { account?: string; channel?: string; id?: string }) => RelayError
> = {
  ACCOUNT_EXISTS: (_, { account }) =>
    new RelayError('conflict', `account ${account} already exists`),
  ACCOUNT_GONE: () => new RelayError('account_gone', "the token's account no longer exists"),
  ACCOUNT_NOT_FOUND: (_, { account }) =>
    new RelayError('account_not_found', `account ${account} does not exist`),
  AUTH_INVALID: () => new RelayError('invalid_credential', 'invalid or revoked token'),
  TOKEN_EXPIRED: () => new RelayError('credential_expired', 'token has expired'),
  SESSION_EXPIRED: () => new RelayError('credential_expired', 'session has expired; sign in again'),
  SESSION_ENDED: () =>
    new RelayError(
      'credential_expired',
      'session has ended: its sign-in token was revoked or expired',
    ),
  CHANNEL_SCOPE: ([channel]) =>
    new RelayError('channel_scope', `this token may not use channel ${channel}`),
  RATE_LIMITED: ([by, waitMs, rate, burst]) =>
    by === 'token'
      ? rateLimited(
          Number(waitMs),
          (wait) =>
            `rate limit exceeded: this token may make ${plural(rate, 'request')} per second (its rate_limit_per_second); retry after ${wait} s`,
        )
      : rateLimited(
          Number(waitMs),
          (wait) =>
            `rate limit exceeded: this account may make ${plural(rate, 'request')} per second in bursts of ${burst} (rate_limit_per_second ${rate}, rate_limit_burst ${burst}); retry after ${wait} s`,
        ),
  CHANNEL_LIMIT: ([max]) =>
    new RelayError(
      'channel_limit',
      `channel limit reached: the plan allows at most ${max} channels`,
    ),
  REPLAY_NOT_FOUND: (_, { id }) =>
    new RelayError('history_not_found', `replay job ${id} does not exist`),
  CHANNEL_NOT_FOUND: (_, { channel }) =>
    new RelayError('channel_not_found', `channel ${channel} does not exist`),
  DESTINATION_EXISTS: ([id], { channel }) =>
    new RelayError(
      'conflict',
      `channel ${channel} already has destination ${id} (at most one per channel; send to several URLs with several channels)`,
    ),
  DESTINATION_NOT_FOUND: (_, { channel, id }) =>
    new RelayError(
      'destination_not_found',
      `destination ${id} does not exist on channel ${channel}`,
    ),
  GROUP_ORDER_BUSY: ([groups], { channel }) =>
    new RelayError(
      'invalid_field',
      `group_order cannot change while channel ${channel} holds grouped messages (${groups} groups); change it when they are delivered`,
    ),
  GROUP_REQUIRED: ([index], { channel }) =>
    new RelayError(
      'invalid_field',
      `messages[${index}].group_id is required: channel ${channel} is a FIFO channel (fifo: true)`,
    ),
  STORAGE_LIMIT: ([max]) =>
    new RelayError(
      'storage_limit',
      `storage limit reached: the plan allows at most ${max} bytes of stored messages`,
    ),
  MESSAGE_TOO_LARGE: ([index, ceiling]) =>
    new RelayError(
      'message_too_large',
      `messages[${index}] is over the ${ceiling}-byte storage ceiling`,
    ),
  SIZE_LIMIT: ([index, size, bound, max]) =>
    new RelayError(
      'message_too_large',
      `messages[${index}] is ${size} bytes, over its limit of ${max} bytes (${bound})`,
    ),
  TAG_LIMIT: ([max, count], { channel }) =>
    new RelayError(
      'invalid_field',
      `channel ${channel} may have at most ${max} tags; this change would leave it with ${count}`,
    ),
  TOKEN_LIMIT: ([max]) =>
    new RelayError(
      'token_limit',
      `token limit reached: the plan allows at most ${max} tokens per account (max_tokens); revoke one first`,
    ),
  TOKEN_NOT_FOUND: (_, { account, id }) =>
    new RelayError('token_not_found', `token ${id} does not exist in account ${account}`),
  WEBHOOK_LIMIT: ([max]) =>
    new RelayError(
      'webhook_limit',
      `webhook limit reached: an account may have at most ${max} webhooks`,
    ),
  ROUTE_CHAIN: ([kind, target, source], { channel }) =>
    new RelayError(
      'invalid_field',
      kind === 'target'
        ? `routes do not chain: channel ${target} is a target of the routes of channel ${source}, so it may not have routes of its own`
        : `routes do not chain: channel ${target} has routes of its own, so channel ${channel} may not route into it`,
    ),
  WEBHOOK_NOT_FOUND: (_, { channel, id }) =>
    new RelayError('webhook_not_found', `webhook ${id} does not exist on channel ${channel}`),
};

/** The client's error for a script's error reply (SCRIPT_ERRORS), or the error itself. */
export function scriptError(
  err: unknown,
  about: { account?: string; channel?: string; id?: string } = {},
): unknown {
  const failure = scriptFailure(err);
  if (!failure || failure.code === 'STALE_CONFIG' || failure.code === 'ROUTES_CHANGED') return err;
  const toError =
    SCRIPT_ERRORS[failure.code as Exclude<ScriptErrorCode, 'STALE_CONFIG' | 'ROUTES_CHANGED'>];
  return toError(failure.detail === '' ? [] : failure.detail.split(' '), about);
}

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

/**
 * Errors of a command that may have reached Redis and run there: its answer timed out, or
 * the connection was lost while it was in flight (ioredis fails the commands it had sent).
 */
const UNANSWERED = /Command timed out|Connection is closed|ECONNRESET|EPIPE|socket closed/i;

/** Re-throws anything that is not one of our script codes as a RelayError or as is. */
export function rethrowStoreError(err: unknown): never {
  if (err instanceof RelayError) throw err;
  if (isUnavailable(err)) {
    const unanswered =
      err instanceof Error && err.name !== 'ReplyError' && UNANSWERED.test(err.message);
    throw unavailable(unanswered ? 'unknown' : 'none');
  }
  throw err;
}
