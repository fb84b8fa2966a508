/**
 * Reads the caller's credential once per request: the Authorization header's bearer token,
 * else the dashboard session's cookie (its CSRF token and origin checked here, 403), without
 * rewriting any header. No Redis: the credential is checked by the one script call that
 * serves the request (the queue scripts), or by one authorize call (requestAuth).
 */
import type { NextFunction, Request, Response } from 'express';
import { authenticate, headerCaller, tokenCaller, type AuthContext } from '../auth/authenticate';
import { sessionToken } from '../auth/sessions';
import type { Caller } from '../store/scripts/define';
import type { HttpDeps } from './context';

type Credential = { caller: Caller; error?: undefined } | { caller?: undefined; error: unknown };

const credentials = new WeakMap<Request, Credential>();

function readCredential(req: Request): Credential {
  try {
    const session = sessionToken(req, req.protocol);
    return {
      caller: session === null ? headerCaller(req.headers.authorization) : tokenCaller(session),
    };
  } catch (err) {
    return { error: err };
  }
}

/**
 * The middleware: a refused session (CSRF, origin) is answered at once, as before; a missing
 * or malformed credential is kept for the route, which answers it with its 401 before
 * anything else.
 */
export function readCaller(req: Request, _res: Response, next: NextFunction): void {
  const credential = readCredential(req);
  if (credential.error !== undefined && req.headers.authorization === undefined) {
    // a cookie that failed its CSRF or origin check
    const status = (credential.error as { status?: number }).status;
    if (status === 403) return next(credential.error);
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
  deps: HttpDeps,
  channel: string | null = null,
): Promise<AuthContext> {
  return authenticate(requestCaller(req), deps.store.accounts, deps.plans, channel);
}
