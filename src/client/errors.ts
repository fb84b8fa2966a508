/** The one error type the SDK throws. */

/** What the relay answered when a call failed, or `status` 0 when it could not be reached. */
export class RelayError extends Error {
  /** The HTTP status; 0 when no response came (network error, timeout). */
  readonly status: number;
  /** The envelope's `errors[0].code` (the HTTP status by the relay's rules); 0 when no response came. */
  readonly code: number;
  /** Every error of the envelope. */
  readonly errors: { code: number; message: string }[];
  /** Seconds from the `Retry-After` header, when the relay sent one. */
  readonly retryAfterSeconds: number | null;

  constructor(
    status: number,
    code: number,
    message: string,
    options: {
      errors?: { code: number; message: string }[];
      retryAfterSeconds?: number | null;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RelayError';
    this.status = status;
    this.code = code;
    this.errors = options.errors ?? (status === 0 ? [] : [{ code, message }]);
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }

  /** True for failures a retry may cure: no response, 503, and 429. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 503 || this.status === 429;
  }
}
