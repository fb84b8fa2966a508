/**
 * Refusals the HTTP server writes itself, outside any route (a body that did not arrive in
 * time), in the shape of the entrance the request was for: the relay envelope, unless the
 * entrance named its own writer for the response (the SQS endpoint answers in SQS's shape).
 * Each closes the connection once written (the error's closeConnection), without reading on.
 */
import type { ServerResponse } from 'node:http';
import type { RelayError } from '../errors';
import { toEnvelope } from './envelope';

export type RefusalWriter = (res: ServerResponse, err: RelayError) => void;

const writers = new WeakMap<ServerResponse, RefusalWriter>();

/** The entrance answers this response's refusals with its own writer. */
export function refuseInShape(res: ServerResponse, writer: RefusalWriter): void {
  writers.set(res, writer);
}

/** The envelope, as every relay API error. */
export const envelopeRefusal: RefusalWriter = (res, err) => {
  const { status, body, headers } = toEnvelope(err);
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
};

/** Answers the request with a refusal in its entrance's shape. */
export function refuse(res: ServerResponse, err: RelayError): void {
  (writers.get(res) ?? envelopeRefusal)(res, err);
}
