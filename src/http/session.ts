/**
 * Dashboard sign-in and sign-out. POST exchanges an owner token for a session
 * cookie (the owner token itself is never stored by the browser); GET tells the
 * page whether it is signed in (and its CSRF token); DELETE signs out by
 * revoking the session.
 */
import { Router, type Request, type Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { authenticate, tokenCaller } from '../auth/authenticate';
import { csrfTokenFor, checkSameOrigin, SESSION_COOKIE, sessionCookie } from '../auth/sessions';
import { parseToken } from '../auth/tokens';
import { AppError, badRequest, unauthorized } from '../errors';
import { objectBody } from './body';
import type { HttpDeps } from './context';
import { issueToken } from './admin';
import { resource } from './route';

const WRONG_TOKEN = 'that token was not accepted: sign in with an owner token of your account';

function setCookie(req: Request, res: Response, value: string, maxAgeSeconds: number): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie(SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: '/',
      maxAge: maxAgeSeconds,
    }),
  );
}

export function sessionRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store, plans, config } = deps;

  resource(router, '/dashboard/api/session', {
    post: async (req, res) => {
      checkSameOrigin(req, false, req.protocol);
      const body = objectBody(req.body);
      if (typeof body.token !== 'string' || body.token === '')
        throw badRequest('required field token is missing');
      let auth;
      try {
        // counted against the rate limits with the check, in one call
        auth = await authenticate(tokenCaller(body.token), store.accounts, plans);
      } catch (err) {
        if (err instanceof AppError && err.status === 401) throw unauthorized(WRONG_TOKEN);
        throw err;
      }
      if (auth.role !== 'owner' || auth.session) throw unauthorized(WRONG_TOKEN);
      const ttl = config.sessionTtlSeconds;
      const issued = await issueToken(store.accounts, auth.accountId, {
        name: 'dashboard session',
        role: 'owner',
        expires_in_seconds: ttl,
        kind: 'session',
        parent_id: auth.tokenId,
      });
      setCookie(req, res, issued.token, ttl);
      return {
        account: auth.accountId,
        expires_ms: issued.expires_ms,
        csrf_token: csrfTokenFor(issued.token),
      };
    },
    get: async (req) => {
      const token = sessionCookie(req);
      if (!token) throw unauthorized('not signed in');
      const auth = await authenticate(
        { ...tokenCaller(token), count: false },
        store.accounts,
        plans,
      );
      if (!auth.session) throw unauthorized('not signed in');
      return {
        account: auth.accountId,
        expires_ms: auth.expiresMs,
        csrf_token: csrfTokenFor(token),
      };
    },
    delete: async (req, res) => {
      const token = sessionCookie(req);
      setCookie(req, res, '', 0);
      if (!token || !parseToken(token)) return { signed_out: true };
      checkSameOrigin(req, false, req.protocol);
      try {
        const auth = await authenticate(
          { ...tokenCaller(token), count: false },
          store.accounts,
          plans,
        );
        if (auth.session) await store.accounts.revokeToken(auth.accountId, auth.tokenId);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 401) throw err;
      }
      return { signed_out: true };
    },
  });

  return router;
}
