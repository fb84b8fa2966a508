/**
 * Deciding an upgrade request: which subscription it asks for, whether its
 * token may have it. A refusal is a plain HTTP response with the envelope body,
 * written before any upgrade.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestCaller } from '../auth/credential';
import { RelayError, invalidField, notFound } from '../errors';
import type { AuthContext, Relay } from '../relay';
import { checkChannelScope } from '../relay';
import { describeIdRule, isValidId } from '../schemas/ids';
import { toEnvelope } from '../web/envelope';

export const MAX_CHANNELS_PER_SUBSCRIPTION = 100;

export interface SubscriptionRequest {
  auth: AuthContext;
  channels: string[];
  /** true for /v1/relay/subscribe (the multi-channel form) */
  multi: boolean;
}

const SINGLE = /^\/v1\/relay\/channels\/([^/]+)\/messages\/subscribe\/?$/;
const MULTI = /^\/v1\/relay\/subscribe\/?$/;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidField(describeIdRule('channelId'));
  }
}

export async function parseSubscription(
  req: IncomingMessage,
  relay: Relay,
  /** the client's scheme (see web/proxy.ts), for a dashboard session's Origin check */
  scheme = 'http',
): Promise<SubscriptionRequest> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const single = SINGLE.exec(url.pathname);
  const multi = MULTI.test(url.pathname);
  if (!single && !multi) throw notFound(`no such endpoint: GET ${url.pathname.slice(0, 200)}`);
  if (req.method !== 'GET') {
    throw new RelayError(
      'method_not_allowed',
      `method ${req.method} is not allowed here; use GET`,
      {
        allow: ['GET'],
      },
    );
  }
  // one authorize call: the token checked and the upgrade counted against the rate limits
  const auth = await relay.authorize(requestCaller(req, scheme, true));
  let channels: string[];
  if (single) {
    const channel = decode(single[1]);
    if (!isValidId(channel)) throw invalidField(describeIdRule('channelId'));
    channels = [channel];
  } else {
    const given = url.searchParams.getAll('channels');
    if (given.length === 0 || given[0].trim() === '') {
      throw invalidField(
        'query parameter channels is required: a comma-separated list of channel ids',
      );
    }
    if (given.length > 1) throw invalidField('query parameter channels must be given once');
    channels = [...new Set(given[0].split(','))];
    if (channels.length > MAX_CHANNELS_PER_SUBSCRIPTION) {
      throw invalidField(`channels must list at most ${MAX_CHANNELS_PER_SUBSCRIPTION} channel ids`);
    }
    for (const channel of channels) {
      if (!isValidId(channel))
        throw invalidField(
          `channels: "${String(channel).slice(0, 130)}" is not valid; ${describeIdRule('a channel id')}`,
        );
    }
  }
  for (const channel of channels) checkChannelScope(auth, channel);
  return { auth, channels, multi };
}

/** True when the request asks for WebSocket (among the protocols its Upgrade header lists). */
export function wantsWebSocket(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '')
    .split(',')
    .some((protocol) => protocol.trim().toLowerCase() === 'websocket');
}

const HOP_BY_HOP_UPGRADE = new Set(['upgrade', 'http2-settings']);

/**
 * Serves a request that asked to upgrade to another protocol (h2c: `curl --http2`,
 * Java's HttpClient) as the plain HTTP request it also is: a server may ignore
 * Upgrade (RFC 9110 7.8). Node hands every request with an Upgrade header to the
 * 'upgrade' listeners, so the request is given back to the HTTP server without it,
 * its body following from `head` and the socket.
 */
export function serveWithoutUpgrade(
  server: Server,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    let value = req.rawHeaders[i + 1];
    const lower = name.toLowerCase();
    if (HOP_BY_HOP_UPGRADE.has(lower)) continue;
    if (lower === 'connection') {
      value = value
        .split(',')
        .map((token) => token.trim())
        .filter((token) => token !== '' && !HOP_BY_HOP_UPGRADE.has(token.toLowerCase()))
        .join(', ');
      if (value === '') continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Answers an upgrade request with a plain HTTP error response and closes the socket. */
export function refuseUpgrade(socket: Duplex, err: unknown): void {
  const { status, body, headers } = toEnvelope(err);
  const json = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        extra +
        'Connection: close\r\n\r\n' +
        json,
    );
  }
  socket.destroy();
}
