/**
 * The body deadline (slowloris for bodies): once a request's headers have arrived, its
 * body must have arrived whole within RELAY_BODY_TIMEOUT_MS, however slowly it trickles,
 * on every route. Node's headersTimeout ends with the headers, and its requestTimeout
 * reaches a request the app is still reading as a client error that nodeServer.ts holds
 * back until the request is answered: without this a body that stops arriving holds its
 * connection for good. One timer per request with a body, started when the server hands
 * the request over, cleared once the body has ended (read by the app, or read off by Node
 * after the answer) or the connection has closed. Past it: a 408 in the entrance's shape
 * if nothing was answered yet, and the connection closed either way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RelayError } from '../errors';
import { refuse } from './refusals';

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function watchBodyDeadline(
  req: IncomingMessage,
  res: ServerResponse,
  timeoutMs: number,
): void {
  if (!hasBody(req)) return;
  const timer = setTimeout(() => {
    req.off('close', done);
    // (arrived whole but not read yet: the app is still on it, within its own limits)
    if (req.complete) return;
    if (res.headersSent) req.socket.destroy();
    else
      refuse(
        res,
        new RelayError('request_timeout', `request body was not received within ${timeoutMs} ms`, {
          closeConnection: true,
        }),
      );
  }, timeoutMs);
  // 'close' follows the body's end, or the connection's
  const done = () => clearTimeout(timer);
  req.once('close', done);
}
