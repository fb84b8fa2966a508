/**
 * The one credential path: every entrance reads its caller's credential here and hands
 * src/relay/ a Caller, the token it names with the proof of holding it. Reading needs no
 * Redis; the proof is checked by the one script call that serves the request
 * (lua/lib/caller.lua), or by relay/authorize.ts where the request is not one script call.
 *
 * - HTTP requests and WebSocket upgrades: the Authorization header's bearer token; else, on
 *   an upgrade, a token offered as the subprotocol `relayq.bearer.<token>` (browsers cannot
 *   set headers there); else the dashboard session's cookie (its CSRF token and Origin
 *   checked by sessions.ts).
 * - Webhook URLs: the URL's key names the webhook; the account is the caller.
 * - The SQS endpoint: the SigV4 access key id names the token (awsKeys.ts); the signature,
 *   checked by the SQS entrance with the derived secret, is the proof.
 */
import type { IncomingMessage } from 'node:http';
import { RelayError, unauthenticated } from '../errors';
import type { Caller } from '../types';
import { sessionToken } from './sessions';
import { hashSecret, parseToken } from './tokens';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of a `Bearer <token>` header; the scheme is case-insensitive (RFC 7235). */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw unauthenticated('missing Authorization header; send Authorization: Bearer <token>');
  }
  const match = BEARER.exec(header);
  if (!match) throw unauthenticated('malformed Authorization header; expected Bearer <token>');
  return match[1];
}

/**
 * The caller a bearer token names, proved by its secret's hash (checked by the script), or
 * a 401 for a missing, malformed or impossible token. No Redis.
 */
export function tokenCaller(token: string): Caller {
  const parsed = parseToken(token);
  if (!parsed) throw new RelayError('invalid_credential', 'invalid token');
  return {
    accountId: parsed.accountId,
    tokenId: parsed.tokenId,
    proof: `secret:${hashSecret(parsed.secret)}`,
    count: true,
  };
}

/** The caller of an Authorization header (tokenCaller), or the 401 it deserves. */
export function headerCaller(header: string | undefined): Caller {
  return tokenCaller(bearerToken(header));
}

/** The subprotocol a browser sends its token in: it cannot set an Authorization header. */
export const BEARER_PROTOCOL_PREFIX = 'relayq.bearer.';

/**
 * The caller of an HTTP request or a WebSocket upgrade: the Authorization header, else (on
 * an upgrade) a `relayq.bearer.<token>` subprotocol, else the dashboard session's cookie,
 * whose CSRF token (unsafe methods) or Origin (upgrades) is checked here (403). `scheme` is
 * the client's (src/web/proxy.ts), for the Origin check.
 */
export function requestCaller(req: IncomingMessage, scheme: string, upgrade = false): Caller {
  if (req.headers.authorization !== undefined) return headerCaller(req.headers.authorization);
  if (upgrade) {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
    if (offered) return headerCaller(`Bearer ${offered.slice(BEARER_PROTOCOL_PREFIX.length)}`);
  }
  const session = sessionToken(req, scheme, upgrade);
  return session === null ? headerCaller(undefined) : tokenCaller(session);
}

/**
 * The caller of a delivery to a webhook URL: the account itself (the URL's key was the
 * credential), counted under the webhook's own rate counter name.
 */
export function webhookCaller(accountId: string, webhookId: string): Caller {
  return { accountId, tokenId: `webhook-${webhookId}`, proof: 'account', count: true };
}

/** The caller an SQS request's access key id names, once its signature is checked. */
export function awsCaller(
  ids: { accountId: string; tokenId: string },
  accessKeyId: string,
): Caller {
  return {
    accountId: ids.accountId,
    tokenId: ids.tokenId,
    proof: `aws:${accessKeyId}`,
    count: true,
  };
}
