/**
 * One error type for the whole service. Every failure a client can see, whether
 * it comes from validation, from a Lua script or from an unexpected exception,
 * leaves through toEnvelope() with the HTTP status as its code.
 */

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'INTERNAL'
  | 'UNAVAILABLE';

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export class AppError extends Error {
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on a 429. */
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = STATUS[code];
    this.headers = headers;
  }
}

export const badRequest = (message: string): AppError => new AppError('BAD_REQUEST', message);
export const notFound = (message: string): AppError => new AppError('NOT_FOUND', message);
export const forbidden = (message: string): AppError => new AppError('FORBIDDEN', message);
export const unauthorized = (message: string): AppError => new AppError('UNAUTHORIZED', message);

export interface Envelope<T> {
  success: boolean;
  errors: { code: number; message: string }[];
  messages: never[];
  result: T | null;
}

export function okEnvelope<T>(result: T): Envelope<T> {
  return { success: true, errors: [], messages: [], result };
}

export const INTERNAL_MESSAGE = 'internal error; the request may be retried';
export const UNAVAILABLE_MESSAGE =
  'the queue store is unavailable; the request had no effect and may be retried';

/** Maps anything thrown to the status and envelope a client receives. */
export function toEnvelope(err: unknown): {
  status: number;
  body: Envelope<null>;
  headers: Record<string, string>;
} {
  const appError = err instanceof AppError ? err : new AppError('INTERNAL', INTERNAL_MESSAGE);
  return {
    status: appError.status,
    headers: appError.headers,
    body: {
      success: false,
      errors: [{ code: appError.status, message: appError.message }],
      messages: [],
      result: null,
    },
  };
}
