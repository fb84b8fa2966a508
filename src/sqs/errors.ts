/**
 * SQS's error shapes: the AWS JSON 1.0 body `{"__type": "com.amazonaws.sqs#Code",
 * "message": "..."}`, the `x-amzn-query-error: <query code>;<Sender|Receiver>`
 * header that query-compatible SDKs (the JS SDK v3, botocore) read the error
 * code from, the query protocol's XML (protocol/xml.ts, with the query code),
 * and SQS's HTTP status. Everything the SQS endpoint answers with on
 * failure goes through toSqsError(), never the relay envelope.
 */
import { RelayError, type ErrorCode } from '../errors';
import { errorHeaders } from '../web/envelope';

interface ErrorShape {
  status: number;
  /** the code in x-amzn-query-error (SQS's query-protocol code) */
  queryCode: string;
  fault: 'Sender' | 'Receiver';
}

/** SQS's codes (model errors and common errors) with their status and query code. */
const SHAPES = {
  AccessDenied: { status: 403, queryCode: 'AccessDenied', fault: 'Sender' },
  BatchEntryIdsNotDistinct: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    fault: 'Sender',
  },
  BatchRequestTooLong: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.BatchRequestTooLong',
    fault: 'Sender',
  },
  EmptyBatchRequest: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.EmptyBatchRequest',
    fault: 'Sender',
  },
  IncompleteSignature: { status: 400, queryCode: 'IncompleteSignature', fault: 'Sender' },
  InternalFailure: { status: 500, queryCode: 'InternalFailure', fault: 'Receiver' },
  InvalidAction: { status: 400, queryCode: 'InvalidAction', fault: 'Sender' },
  InvalidAddress: { status: 404, queryCode: 'InvalidAddress', fault: 'Sender' },
  InvalidAttributeName: { status: 400, queryCode: 'InvalidAttributeName', fault: 'Sender' },
  InvalidAttributeValue: { status: 400, queryCode: 'InvalidAttributeValue', fault: 'Sender' },
  InvalidBatchEntryId: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.InvalidBatchEntryId',
    fault: 'Sender',
  },
  InvalidClientTokenId: { status: 403, queryCode: 'InvalidClientTokenId', fault: 'Sender' },
  InvalidMessageContents: { status: 400, queryCode: 'InvalidMessageContents', fault: 'Sender' },
  InvalidParameterValue: { status: 400, queryCode: 'InvalidParameterValue', fault: 'Sender' },
  MessageNotInflight: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.MessageNotInflight',
    fault: 'Sender',
  },
  MissingAuthenticationToken: {
    status: 403,
    queryCode: 'MissingAuthenticationToken',
    fault: 'Sender',
  },
  MissingAction: { status: 400, queryCode: 'MissingAction', fault: 'Sender' },
  MissingParameter: { status: 400, queryCode: 'MissingParameter', fault: 'Sender' },
  OverLimit: { status: 403, queryCode: 'OverLimit', fault: 'Sender' },
  QueueDoesNotExist: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.NonExistentQueue',
    fault: 'Sender',
  },
  QueueNameExists: { status: 400, queryCode: 'QueueAlreadyExists', fault: 'Sender' },
  ReceiptHandleIsInvalid: { status: 404, queryCode: 'ReceiptHandleIsInvalid', fault: 'Sender' },
  // relayq's: a body over the request limit (router.ts), or not received in time (RELAY_BODY_TIMEOUT_MS);
  // the SDKs retry a RequestTimeout
  RequestEntityTooLarge: { status: 413, queryCode: 'RequestEntityTooLarge', fault: 'Sender' },
  RequestTimeout: { status: 408, queryCode: 'RequestTimeout', fault: 'Sender' },
  RequestHeaderSectionTooLarge: {
    status: 431,
    queryCode: 'RequestHeaderSectionTooLarge',
    fault: 'Sender',
  },
  RequestThrottled: { status: 403, queryCode: 'RequestThrottled', fault: 'Sender' },
  ServiceUnavailable: { status: 503, queryCode: 'ServiceUnavailable', fault: 'Receiver' },
  SignatureDoesNotMatch: { status: 403, queryCode: 'SignatureDoesNotMatch', fault: 'Sender' },
  TooManyEntriesInBatchRequest: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    fault: 'Sender',
  },
  UnsupportedOperation: {
    status: 400,
    queryCode: 'AWS.SimpleQueueService.UnsupportedOperation',
    fault: 'Sender',
  },
} satisfies Record<string, ErrorShape>;

export type SqsErrorCode = keyof typeof SHAPES;

export class SqsError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: SqsErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SqsError';
    this.status = SHAPES[code].status;
    this.headers = headers;
  }

  /** the code the query protocol answers with (and x-amzn-query-error names) */
  get queryCode(): string {
    return SHAPES[this.code].queryCode;
  }

  get fault(): 'Sender' | 'Receiver' {
    return (SHAPES[this.code] as ErrorShape).fault;
  }

  /** `code;fault` as SQS writes it in x-amzn-query-error */
  get queryError(): string {
    return `${this.queryCode};${this.fault}`;
  }

  get body(): { __type: string; message: string } {
    return { __type: `com.amazonaws.sqs#${this.code}`, message: this.message };
  }
}

export const invalidParameter = (message: string): SqsError =>
  new SqsError('InvalidParameterValue', message);

export const missingParameter = (name: string): SqsError =>
  new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);

export const INVALID_KEY = 'The security token included in the request is invalid.';

/**
 * What each domain error code (src/errors.ts) is on the SQS endpoint (docs/sqs.md's errors
 * table): a new code does not compile until it is given one.
 */
export const SQS_CODES: Readonly<Record<ErrorCode, SqsErrorCode>> = {
  invalid_request: 'InvalidParameterValue',
  invalid_field: 'InvalidParameterValue',
  unsupported_media_type: 'InvalidParameterValue',
  body_too_large: 'RequestEntityTooLarge',
  message_too_large: 'InvalidParameterValue',
  unauthenticated: 'MissingAuthenticationToken',
  invalid_credential: 'InvalidClientTokenId',
  credential_expired: 'InvalidClientTokenId',
  account_gone: 'InvalidClientTokenId',
  forbidden: 'AccessDenied',
  channel_scope: 'AccessDenied',
  channel_limit: 'OverLimit',
  storage_limit: 'OverLimit',
  token_limit: 'OverLimit',
  webhook_limit: 'OverLimit',
  not_found: 'InvalidAction',
  account_not_found: 'InvalidClientTokenId',
  channel_not_found: 'QueueDoesNotExist',
  token_not_found: 'InvalidClientTokenId',
  webhook_not_found: 'InvalidAction',
  history_not_found: 'InvalidAction',
  destination_not_found: 'InvalidAction',
  method_not_allowed: 'InvalidAction',
  conflict: 'QueueNameExists',
  rate_limited: 'RequestThrottled',
  concurrency_limit: 'RequestThrottled',
  request_timeout: 'RequestTimeout',
  headers_too_large: 'RequestHeaderSectionTooLarge',
  unavailable: 'ServiceUnavailable',
  internal: 'InternalFailure',
};

/** Anything thrown, as SQS tells it: the relay's errors by their code, anything else internal. */
export function toSqsError(err: unknown): SqsError {
  if (err instanceof SqsError) return err;
  if (!(err instanceof RelayError) || err.code === 'internal') {
    return new SqsError('InternalFailure', 'internal error; the request may be retried');
  }
  const code = SQS_CODES[err.code];
  // a key whose token was revoked (or lost its key) since: told as an unknown key
  const message = err.code === 'invalid_credential' ? INVALID_KEY : err.message;
  return new SqsError(code, message, errorHeaders(err));
}
