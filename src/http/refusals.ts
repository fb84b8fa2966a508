/**
 * Refusals the HTTP server writes itself, outside any route (a body that did not
 * arrive in time), in the shape of the entrance the request was for: the relay
 * envelope, unless the entrance named its own writer for the response (the SQS
 * endpoint answers in SQS's shape). Each is sent with `Connection: close`: Node
 * then closes the connection once the answer is written, without reading on.
 */
import type { ServerResponse } from 'node:http';

export type RefusalWriter = (res: ServerResponse, status: number, message: string) => void;

const writers = new WeakMap<ServerResponse, RefusalWriter>();

/** The entrance answers this response's refusals with its own writer. */
export function refuseInShape(res: ServerResponse, writer: RefusalWriter): void {
  writers.set(res, writer);
}

/** The envelope (src/errors.ts's shape), as every relay API error. */
export const envelopeRefusal: RefusalWriter = (res, status, message) => {
  const json = JSON.stringify({
    success: false,
    errors: [{ code: status, message }],
    messages: [],
    result: null,
  });
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    Connection: 'close',
  });
  res.end(json);
};

/** Answers the request with a refusal in its entrance's shape. */
export function refuse(res: ServerResponse, status: number, message: string): void {
  (writers.get(res) ?? envelopeRefusal)(res, status, message);
}
