/**
 * Dashboard sessions. Signing in with an owner token opens a session: a new,
 * short-lived owner token (kind 'session', tied to the sign-in token) whose
 * secret lives only in an HttpOnly, SameSite=Strict cookie. Requests carrying
 * the cookie instead of an Authorization header are authenticated as that
 * token (src/web/caller.ts, through src/auth/credential.ts); unsafe methods also need the X-CSRF-Token header (derived from the
 * session secret) and, when the browser sends one, a same-origin Origin.
 */
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseCookie } from 'cookie';
import { forbidden } from '../errors';
import { parseToken } from './tokens';

export const SESSION_COOKIE = 'relayq_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function csrfTokenFor(sessionToken: string): string {
  return crypto.createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

/** The session token in the request's cookie, or null. */
export function sessionCookie(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  const value = parseCookie(header)[SESSION_COOKIE];
  return value && parseToken(value) ? value : null;
}

/**
 * The origin this request was addressed to, as a browser would write it;
 * `scheme` is the client's (believing X-Forwarded-Proto only under RELAY_TRUST_PROXY).
 */
export function ownOrigin(req: IncomingMessage, scheme: string): string {
  return `${scheme}://${req.headers.host ?? ''}`;
}

export function checkSameOrigin(req: IncomingMessage, required: boolean, scheme: string): void {
  const origin = req.headers.origin;
  if (origin === undefined) {
    if (required)
      throw forbidden('a dashboard session needs a same-origin request (Origin header missing)');
    return;
  }
  if (origin !== ownOrigin(req, scheme))
    throw forbidden('cross-origin requests may not use a dashboard session');
}

/**
 * The session token of a request with no Authorization header but a session cookie, once
 * its CSRF token and origin are checked (403 otherwise); null when there is none.
 */
export function sessionToken(req: IncomingMessage, scheme: string, upgrade = false): string | null {
  if (req.headers.authorization !== undefined) return null;
  const token = sessionCookie(req);
  if (token === null) return null;
  if (upgrade) {
    checkSameOrigin(req, true, scheme);
  } else if (!SAFE_METHODS.has(req.method ?? 'GET')) {
    checkSameOrigin(req, false, scheme);
    const given = req.headers['x-csrf-token'];
    const expected = csrfTokenFor(token);
    if (
      typeof given !== 'string' ||
      given.length !== expected.length ||
      !crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected))
    ) {
      throw forbidden('missing or wrong X-CSRF-Token header for a dashboard session');
    }
  }
  return token;
}
