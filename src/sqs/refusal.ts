/**
 * Refusals in SQS's shape, in the request's protocol, for what is answered before the
 * action runs, from the body's size or arrival alone: a body announced over the limit
 * (413, answered before the signature check, which needs the body) and a body not
 * received in time (408, written by the HTTP server's body deadline). The connection
 * closes after the answer: the rest of the body is not read.
 */
import crypto from 'node:crypto';
import type { RefusalShape, RefusalWriter } from '../web/refusals';
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

/**
 * The SQS endpoint's claim on refusals the server writes before any route (headers over the
 * limit, a malformed request, no Host, a body not in time): requests to /sqs and its queue
 * URLs, and SQS requests at the root path, answered in their protocol.
 */
export const sqsRefusalShape: RefusalShape = {
  claims({ method, url, headers }) {
    // asked of every request: the common answer (another path) without splitting the URL
    if (url.startsWith('/sqs')) return url.length === 4 || url[4] === '/' || url[4] === '?';
    if (url !== '/' && !url.startsWith('/?')) return false;
    const search = url.slice(2);
    const target = headers['x-amz-target'];
    if (typeof target === 'string') return target.startsWith('AmazonSQS.');
    if (new URLSearchParams(search).has('Action')) return true;
    return (
      method === 'POST' &&
      String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
    );
  },
  writer({ headers }) {
    const json =
      headers['x-amz-target'] !== undefined ||
      String(headers['content-type'] ?? '').includes('json');
    return sqsRefusal(json ? 'json' : 'query');
  },
};
