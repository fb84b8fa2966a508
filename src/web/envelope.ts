/**
 * The relay API's answer shape (the spec's envelope), and how each domain error code
 * (src/errors.ts) is told over HTTP: its status, and the headers its details ask for. The
 * HTTP entrances (relay and account API, WebSocket upgrades, webhook URLs) answer with it;
 * the SQS endpoint has its own mapping (src/sqs/errors.ts).
 */
import { INTERNAL_MESSAGE, RelayError, type ErrorCode } from '../errors';

/** The HTTP status of every code: a new code does not compile until it is given one. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  invalid_field: 400,
  unsupported_media_type: 415,
  body_too_large: 413,
  message_too_large: 413,
  unauthenticated: 401,
  invalid_credential: 401,
  credential_expired: 401,
  account_gone: 401,
  forbidden: 403,
  channel_scope: 403,
  channel_limit: 403,
  storage_limit: 403,
  token_limit: 403,
  webhook_limit: 403,
  not_found: 404,
  account_not_found: 404,
  channel_not_found: 404,
  token_not_found: 404,
  webhook_not_found: 404,
  history_not_found: 404,
  destination_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  rate_limited: 429,
  concurrency_limit: 429,
  request_timeout: 408,
  headers_too_large: 431,
  unavailable: 503,
  internal: 500,
};

export interface Envelope<T> {
  success: boolean;
  errors: { code: number; message: string }[];
  messages: never[];
  result: T | null;
}

export function okEnvelope<T>(result: T): Envelope<T> {
  return { success: true, errors: [], messages: [], result };
}

/** The headers an error's details ask for (Retry-After, Allow, Connection). */
export function errorHeaders(err: RelayError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.details.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(err.details.retryAfterSeconds);
  }
  if (err.details.allow) headers.Allow = err.details.allow.join(', ');
  if (err.details.closeConnection) headers.Connection = 'close';
  return headers;
}

/** Maps anything thrown to the status, headers and envelope a client receives. */
export function toEnvelope(err: unknown): {
  status: number;
  body: Envelope<null>;
  headers: Record<string, string>;
} {
  const error = err instanceof RelayError ? err : new RelayError('internal', INTERNAL_MESSAGE);
  const status = HTTP_STATUS[error.code];
  return {
    status,
    headers: errorHeaders(error),
    body: {
      success: false,
      errors: [{ code: status, message: error.message }],
      messages: [],
      result: null,
    },
  };
}
