/**
 * One table of the domain's error codes. The store and src/relay/ raise a RelayError with a
 * code from it and a sentence that names what is wrong; each entrance maps the code to its
 * own shape (the envelope and HTTP status: src/web/envelope.ts; SQS's __type and status:
 * src/sqs/errors.ts; a refused WebSocket upgrade: the envelope). No entrance reads another's
 * error text: the code decides, the sentence is for people.
 */

/** Every code, with what it means (docs/api/errors.md lists them with their statuses). */
export const ERROR_CODES = {
  invalid_request: 'the request cannot be read: its body, JSON, encoding or path',
  invalid_field: 'a field or parameter has a value that is not allowed',
  unsupported_media_type: 'the request body is of a content type the endpoint does not take',
  body_too_large: 'the request body is over the limit',
  message_too_large: 'a message is over the size limit',
  unauthenticated: 'no credential, or a malformed one',
  invalid_credential: 'the credential is unknown, revoked or does not match',
  credential_expired: 'the token or session has expired, or the session ended',
  account_gone: "the credential's account no longer exists",
  forbidden: 'the credential may not do this (owner tokens only, a cross-site request)',
  channel_scope: 'the token may not use the channel',
  channel_limit: "the plan's channel limit is reached",
  storage_limit: "the plan's storage limit is reached",
  token_limit: "the plan's token limit is reached",
  webhook_limit: "the account's webhook limit is reached",
  not_found: 'no such endpoint',
  account_not_found: 'the account does not exist',
  channel_not_found: 'the channel does not exist',
  token_not_found: 'the token does not exist',
  webhook_not_found: 'the webhook does not exist, or its URL is unknown',
  history_not_found:
    "the message is not in the channel's history, or the replay job does not exist",
  destination_not_found: 'the push destination does not exist',
  method_not_allowed: 'the endpoint does not take this method',
  conflict: 'the thing to create exists already',
  rate_limited: 'a request rate limit is reached (retry after the time given)',
  concurrency_limit: 'a limit on things held at once is reached (long polls, WebSockets)',
  request_timeout: 'the request body did not arrive in time',
  headers_too_large: 'the request headers are over the limit',
  unavailable: 'the queue store is unavailable; nothing was changed, retry',
  internal: 'an unexpected failure; nothing is told of it but that',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetails {
  /** when the request may be retried (rate and concurrency limits) */
  retryAfterSeconds?: number;
  /** the methods the endpoint takes (method_not_allowed) */
  allow?: readonly string[];
  /** the connection is closed after the answer (a body too large to read off) */
  closeConnection?: boolean;
}

export class RelayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

/** The codes of a refused credential (HTTP 401): the caller is not who it says, or no more. */
export const CREDENTIAL_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'unauthenticated',
  'invalid_credential',
  'credential_expired',
  'account_gone',
]);

/** True when err refuses the caller's credential (CREDENTIAL_REFUSALS). */
export const isCredentialRefusal = (err: unknown): boolean =>
  err instanceof RelayError && CREDENTIAL_REFUSALS.has(err.code);

export const invalidField = (message: string): RelayError =>
  new RelayError('invalid_field', message);
export const invalidRequest = (message: string): RelayError =>
  new RelayError('invalid_request', message);
export const notFound = (message: string): RelayError => new RelayError('not_found', message);
export const forbidden = (message: string): RelayError => new RelayError('forbidden', message);
export const unauthenticated = (message: string): RelayError =>
  new RelayError('unauthenticated', message);

const plural = (n: number | string, word: string) => `${n} ${word}${Number(n) === 1 ? '' : 's'}`;

/** A rate limit's refusal, the wait rounded up to whole seconds (at least 1). */
export function rateLimited(waitMs: number, message: (wait: number) => string): RelayError {
  const wait = Math.max(1, Math.ceil(waitMs / 1000));
  return new RelayError('rate_limited', message(wait), { retryAfterSeconds: wait });
}

export { plural };

export const INTERNAL_MESSAGE = 'internal error; the request may be retried';
export const UNAVAILABLE_MESSAGE =
  'the queue store is unavailable; the request had no effect and may be retried';
/**
 * A command that was sent but not answered (timed out, or its connection was lost): Redis
 * may still have run it, so the client is not told it had no effect.
 */
export const UNANSWERED_MESSAGE =
  'the queue store did not answer; the request may or may not have taken effect and may be retried (a send with a dedup_id is stored once)';

/**
 * The 503: 'none' when nothing reached Redis (refused, not connected, held unreachable),
 * 'unknown' when a command was sent and its answer never came.
 */
export function unavailable(effect: 'none' | 'unknown' = 'none'): RelayError {
  return new RelayError(
    'unavailable',
    effect === 'none' ? UNAVAILABLE_MESSAGE : UNANSWERED_MESSAGE,
  );
}
