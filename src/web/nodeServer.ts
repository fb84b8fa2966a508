/**
 * The public HTTP server: Node's limits against slow or oversized clients
 * (slowloris), the body deadline (bodyDeadline.ts), and an answer in the entrance's shape
 * for what Node refuses before Express sees the request (headers over 16 KB: 431; too slow:
 * 408; malformed or without Host: 400), logged.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { RelayError } from '../errors';
import { watchBodyDeadline } from './bodyDeadline';
import { HTTP_STATUS } from './envelope';
import {
  envelopeRefusal,
  headOf,
  refuse,
  refuseInShape,
  socketResponse,
  writerFor,
  type RefusalShape,
} from './refusals';

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

/** What Node refused, as the relay tells it. */
function refusal(err: NodeJS.ErrnoException, limits: ServerLimits): RelayError {
  const close = { closeConnection: true };
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new RelayError(
        'headers_too_large',
        `request headers are over the ${limits.maxHeaderBytes}-byte limit`,
        close,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RelayError('request_timeout', 'the request was not received in time', close);
    default:
      return new RelayError('invalid_request', 'malformed HTTP request', close);
  }
}

export interface ServerOptions {
  /** entrances that answer their refusals in their own shape (the SQS endpoint) */
  shapes?: readonly RefusalShape[];
  /** where refusals Node made before any route are logged */
  log?: Logger;
}

/**
 * Answers a request Node refused in its entrance's shape, logs it, then closes. Bytes that
 * cannot be parsed may follow a complete request on the same connection (pipelining): Node
 * reports them while that request is still being handled. That request is then answered
 * normally first, and the refusal after it, so a request is never executed yet answered
 * with an error.
 */
function onClientError(
  limits: ServerLimits,
  options: ServerOptions,
  inFlight: WeakMap<Duplex, http.ServerResponse>,
) {
  const answer = (err: NodeJS.ErrnoException, socket: Duplex) => {
    const head = headOf((err as { rawPacket?: Buffer }).rawPacket);
    const refused = refusal(err, limits);
    options.log?.info(
      {
        status: HTTP_STATUS[refused.code],
        reason: refused.message,
        method: head?.method,
        route: head?.url.split('?')[0].slice(0, 200),
      },
      'request refused before routing',
    );
    writerFor(head, options.shapes ?? [])(socketResponse(socket), refused);
  };
  return (err: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
    const pending = inFlight.get(socket);
    if (pending && !pending.writableFinished && err.code !== 'ECONNRESET') {
      const after = () => {
        if (socket.writable) answer(err, socket);
        socket.destroy();
      };
      pending.once('finish', after);
      pending.once('close', after);
      return;
    }
    if (err.code !== 'ECONNRESET' && socket.writable && !socket.bytesWritten) answer(err, socket);
    socket.destroy();
  };
}

export function createApiServer(
  handler: http.RequestListener,
  overrides: Partial<ServerLimits> = {},
  options: ServerOptions = {},
): http.Server {
  const shapes = options.shapes ?? [];
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
      // a request without Host is refused below, in its entrance's shape (Node's own 400 is
      // bare and unlogged)
      requireHostHeader: false,
    },
    (req, res) => {
      inFlight.set(req.socket, res);
      res.once('close', () => {
        if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
      });
      const head = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
      const writer = writerFor(head, shapes);
      if (writer !== envelopeRefusal) refuseInShape(res, writer);
      if (!req.headers.host) {
        const err = new RelayError('invalid_request', 'the Host header is missing', {
          closeConnection: true,
        });
        options.log?.info({ status: 400, reason: err.message }, 'request refused before routing');
        refuse(res, err);
        return;
      }
      watchBodyDeadline(req, res, limits.bodyTimeoutMs);
      handler(req, res);
    },
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // every header counts (the 16 KB limit bounds them): Node's default keeps the first 2,000
  // lines only, so a Host sent after them was lost
  server.maxHeadersCount = 0;
  server.on('clientError', onClientError(limits, options, inFlight));
  return server;
}
