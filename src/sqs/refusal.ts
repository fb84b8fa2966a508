/**
 * Refusals in SQS's shape for what is answered before the action runs, from the body's
 * size or arrival alone: a body announced over MAX_SQS_REQUEST_BYTES (413, answered before
 * the signature check, which needs the body) and a body not received in time (408,
 * written by the HTTP server's body deadline). Sent with `Connection: close`: the rest of
 * the body is not read.
 */
import crypto from 'node:crypto';
import type { RefusalWriter } from '../http/refusals';
import { SqsError, type SqsErrorCode } from './errors';

const CODES: Record<number, SqsErrorCode> = {
  408: 'RequestTimeout',
  413: 'RequestEntityTooLarge',
};

export const sqsRefusal: RefusalWriter = (res, status, message) => {
  const error = new SqsError(CODES[status] ?? 'InvalidParameterValue', message);
  const body = Buffer.from(JSON.stringify(error.body));
  res.writeHead(error.status, {
    'x-amzn-RequestId': crypto.randomUUID(),
    'x-amzn-query-error': error.queryError,
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': body.length,
    Connection: 'close',
  });
  res.end(body);
};
