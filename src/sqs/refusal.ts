/**
 * Refusals in SQS's shape, in the request's protocol, for what is answered before the
 * action runs, from the body's size or arrival alone: a body announced over the limit
 * (413, answered before the signature check, which needs the body) and a body not
 * received in time (408, written by the HTTP server's body deadline). The connection
 * closes after the answer: the rest of the body is not read.
 */
import crypto from 'node:crypto';
import type { RefusalWriter } from '../web/refusals';
import { toSqsError } from './errors';
import { jsonError } from './protocol/json';
import { queryError } from './protocol/query';
import type { ErrorWriter, ProtocolName } from './protocol/request';

export const ERROR_WRITERS: Readonly<Record<ProtocolName, ErrorWriter>> = {
  json: jsonError,
  query: queryError,
};

export function sqsRefusal(protocol: ProtocolName): RefusalWriter {
  return (res, err) => ERROR_WRITERS[protocol](res, toSqsError(err), crypto.randomUUID());
}
