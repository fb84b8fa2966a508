/**
 * Refusals the HTTP server writes itself, outside any route: a body that did not arrive in
 * time, headers over the limit, a request Node could not parse or that names no Host. Each is
 * answered in the shape of the entrance the request was for: the relay envelope, unless an
 * entrance claims the request (the SQS endpoint answers in SQS's shape) or named its own
 * writer for the response. Each closes the connection once written (the error's
 * closeConnection), without reading on.
 */
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RelayError } from '../errors';
import { toEnvelope } from './envelope';

export type RefusalWriter = (res: ServerResponse, err: RelayError) => void;

/** What is known of a request when it is refused: at least its request line, maybe headers. */
export interface RequestHead {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** An entrance that answers its own refusals: the requests it claims, and its writer. */
export interface RefusalShape {
  claims(head: RequestHead): boolean;
  writer(head: RequestHead): RefusalWriter;
}

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

/** The writer of the first shape that claims the request, else the envelope's. */
export function writerFor(
  head: RequestHead | null,
  shapes: readonly RefusalShape[],
): RefusalWriter {
  const shape = head && shapes.find((s) => s.claims(head));
  return shape ? shape.writer(head) : envelopeRefusal;
}

/** Answers the request with a refusal in its entrance's shape. */
export function refuse(res: ServerResponse, err: RelayError): void {
  (writers.get(res) ?? envelopeRefusal)(res, err);
}

/**
 * The head of a request Node refused before making a request of it, read from the bytes it
 * had parsed (a client error's rawPacket): the request line and the complete header lines.
 */
export function headOf(raw: Buffer | undefined): RequestHead | null {
  if (!raw || raw.length === 0) return null;
  const lines = raw.toString('latin1', 0, Math.min(raw.length, 65_536)).split('\r\n');
  const line = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0]);
  if (!line) return null;
  const headers: IncomingHttpHeaders = {};
  // the last line may be cut short: only complete ones count
  for (const text of lines.slice(1, -1)) {
    const colon = text.indexOf(':');
    if (colon > 0)
      headers[text.slice(0, colon).trim().toLowerCase()] = text.slice(colon + 1).trim();
  }
  return { method: line[1], url: line[2], headers };
}

/**
 * A response over a bare socket, for a refusal's writer when Node refused the request
 * before making a response of it: the writer's status, headers and body become one
 * HTTP/1.1 response, and the connection closes.
 */
export function socketResponse(socket: Duplex): ServerResponse {
  let head = '';
  const response = {
    headersSent: false,
    writeHead(status: number, headers: Record<string, string | number> = {}) {
      const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}`];
      for (const [name, value] of Object.entries(headers)) {
        if (name.toLowerCase() !== 'connection') lines.push(`${name}: ${value}`);
      }
      lines.push('Connection: close');
      head = `${lines.join('\r\n')}\r\n\r\n`;
      response.headersSent = true;
      return response;
    },
    end(body?: string | Buffer) {
      socket.end(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body ?? '')]));
      return response;
    },
  };
  return response as unknown as ServerResponse;
}
