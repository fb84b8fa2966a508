/**
 * The caller of an HTTP API request (relay, account, webhook management), read once by a middleware through the one
 * credential path (src/auth/credential.ts): the bearer token, else the dashboard session's
 * cookie (its CSRF token and origin checked there, 403), without rewriting any header. No
 * Redis: the credential is checked by the one script call that serves the request, or by one
 * authorize call (requestAuth).
 */
import type { NextFunction, Request, Response } from 'express';
import { requestCaller as readRequestCaller } from '../auth/credential';
import { RelayError } from '../errors';
import type { AuthContext, Relay } from '../relay';
import type { Caller } from '../types';

type Credential = { caller: Caller; error?: undefined } | { caller?: undefined; error: unknown };

const credentials = new WeakMap<Request, Credential>();

function readCredential(req: Request): Credential {
  try {
    return { caller: readRequestCaller(req, req.protocol) };
  } catch (err) {
    return { error: err };
  }
}

/**
 * The middleware: a refused session (CSRF, origin) is answered at once; a missing or
 * malformed credential is kept for the route, which answers it with its 401 before
 * anything else.
 */
export function readCaller(req: Request, _res: Response, next: NextFunction): void {
  const credential = readCredential(req);
  if (
    credential.error instanceof RelayError &&
    credential.error.code === 'forbidden' &&
    req.headers.authorization === undefined
  ) {
    // a cookie that failed its CSRF or origin check
    return next(credential.error);
  }
  credentials.set(req, credential);
  next();
}

/** The request's caller, or its credential's 401. */
export function requestCaller(req: Request): Caller {
  const credential = credentials.get(req) ?? readCredential(req);
  if (credential.caller === undefined) throw credential.error;
  return credential.caller;
}

/**
 * The full caller, for a route whose operation is not one script call: one authorize call
 * (checks the token, the scope of channel when given, and counts the request).
 */
export function requestAuth(
  req: Request,
  relay: Relay,
  channel: string | null = null,
): Promise<AuthContext> {
  return relay.authorize(requestCaller(req), channel);
}
