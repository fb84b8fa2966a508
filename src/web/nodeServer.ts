/**
 * The public HTTP server: Node's limits against slow or oversized clients
 * (slowloris), the body deadline (bodyDeadline.ts), and an envelope answer for
 * what Node refuses before Express sees the request (headers over 16 KB: 431;
 * too slow: 408; malformed: 400).
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { watchBodyDeadline } from './bodyDeadline';

export interface ServerLimits {
  /** all headers must arrive within this time */
  headersTimeoutMs: number;
  /**
   * the whole request (headers and body) must arrive within this time; raised to
   * headersTimeoutMs + bodyTimeoutMs when that is longer (the body deadline answers first)
   */
  requestTimeoutMs: number;
  /** a body must have arrived whole within this time of the end of its headers */
  bodyTimeoutMs: number;
  /** how often Node checks the two timeouts above */
  checkIntervalMs: number;
  maxHeaderBytes: number;
  keepAliveTimeoutMs: number;
}

export const SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  bodyTimeoutMs: 30_000,
  checkIntervalMs: 5_000,
  maxHeaderBytes: 16_384,
  keepAliveTimeoutMs: 65_000,
});

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function refusal(err: NodeJS.ErrnoException, limits: ServerLimits): [number, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `request headers are over the ${limits.maxHeaderBytes}-byte limit`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request was not received in time'];
    default:
      return [400, 'malformed HTTP request'];
  }
}

function writeRefusal(socket: Duplex, err: NodeJS.ErrnoException, limits: ServerLimits): void {
  const [status, message] = refusal(err, limits);
  const json = JSON.stringify({
    success: false,
    errors: [{ code: status, message }],
    messages: [],
    result: null,
  });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}

/**
 * Answers a request Node refused with the envelope, then closes. Bytes that
 * cannot be parsed may follow a complete request on the same connection
 * (pipelining): Node reports them while that request is still being handled.
 * That request is then answered normally first, and the refusal after it, so a
 * request is never executed yet answered with an error.
 */
function onClientError(limits: ServerLimits, inFlight: WeakMap<Duplex, http.ServerResponse>) {
  return (err: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
    const pending = inFlight.get(socket);
    if (pending && !pending.writableFinished && err.code !== 'ECONNRESET') {
      const after = () => {
        if (socket.writable) writeRefusal(socket, err, limits);
        socket.destroy();
      };
      pending.once('finish', after);
      pending.once('close', after);
      return;
    }
    if (err.code !== 'ECONNRESET' && socket.writable && !socket.bytesWritten) {
      writeRefusal(socket, err, limits);
    }
    socket.destroy();
  };
}

export function createApiServer(
  handler: http.RequestListener,
  overrides: Partial<ServerLimits> = {},
): http.Server {
  const limits = { ...SERVER_LIMITS, ...overrides };
  /** each connection's request being handled, if any */
  const inFlight = new WeakMap<Duplex, http.ServerResponse>();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(
        limits.requestTimeoutMs,
        limits.headersTimeoutMs + limits.bodyTimeoutMs,
      ),
      connectionsCheckingInterval: limits.checkIntervalMs,
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (req, res) => {
      inFlight.set(req.socket, res);
      res.once('close', () => {
        if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
      });
      watchBodyDeadline(req, res, limits.bodyTimeoutMs);
      handler(req, res);
    },
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on('clientError', onClientError(limits, inFlight));
  return server;
}
