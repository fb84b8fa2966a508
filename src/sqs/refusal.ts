/**
 * Refusals in SQS's shape for what is answered before the action runs, from the body's
 * size or arrival alone: a body announced over MAX_SQS_REQUEST_BYTES (413, answered before
 * the signature check, which needs the body) and a body not received in time (408,
 * written by the HTTP server's body deadline). The connection closes after the answer:
 * the rest of the body is not read.
 */
import crypto from 'node:crypto';
import type { RefusalWriter } from '../web/refusals';
import { toSqsError } from './errors';

export const sqsRefusal: RefusalWriter = (res, err) => {
  const error = toSqsError(err);
  const body = Buffer.from(JSON.stringify(error.body));
  res.writeHead(error.status, {
    ...error.headers,
    'x-amzn-RequestId': crypto.randomUUID(),
    'x-amzn-query-error': error.queryError,
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': body.length,
  });
  res.end(body);
};
