/** The one error type the SDK throws. */

/** What the relay answered when a call failed, or `status` 0 when it could not be reached. */
export class RelayError extends Error {
  /** The HTTP status; 0 when no response came (network error, timeout). */
  readonly status: number;
  /** The envelope's `errors[0].code` (the HTTP status by the relay's rules); 0 when no response came. */
  readonly code: number;
  /** Every error of the envelope. */
  readonly errors: { code: number; message: string }[];
  /** How long the relay asked the caller to wait (`Retry-After`), in ms; null when it did not say. */
  readonly retryAfterMs: number | null;

  constructor(
    status: number,
    code: number,
    message: string,
    options: {
      errors?: { code: number; message: string }[];
      retryAfterMs?: number | null;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RelayError';
    this.status = status;
    this.code = code;
    this.errors = options.errors ?? (status === 0 ? [] : [{ code, message }]);
    this.retryAfterMs = options.retryAfterMs ?? null;
  }

  /** @deprecated use retryAfterMs */
  get retryAfterSeconds(): number | null {
    return this.retryAfterMs === null ? null : this.retryAfterMs / 1000;
  }

  /**
   * True for failures a retry may cure: no response, 503 and 429. A 503 or 429
   * means the relay did nothing, so any call may be repeated after one; after
   * no response, only a call that is safe to repeat.
   */
  get retryable(): boolean {
    return this.status === 0 || this.status === 503 || this.status === 429;
  }

  /** The fields that matter, for JSON output (`--json`) and logs. */
  toJSON(): {
    name: string;
    status: number;
    code: number;
    message: string;
    retryAfterMs: number | null;
  } {
    return {
      name: this.name,
      status: this.status,
      code: this.code,
      message: this.message,
      retryAfterMs: this.retryAfterMs,
    };
  }
}
