/**
 * Dashboard sign-in and sign-out. POST exchanges an owner token for a session
 * cookie (the owner token itself is never stored by the browser); GET tells the
 * page whether it is signed in (and its CSRF token); DELETE signs out by
 * revoking the session.
 */
import { Router, type Request, type Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { tokenCaller } from '../auth/credential';
import { csrfTokenFor, checkSameOrigin, SESSION_COOKIE, sessionCookie } from '../auth/sessions';
import { parseToken } from '../auth/tokens';
import { RelayError, invalidField, isCredentialRefusal } from '../errors';
import type { Relay } from '../relay';
import { objectBody } from '../web/body';
import { resource } from '../web/route';

const wrongToken = () =>
  new RelayError(
    'invalid_credential',
    'that token was not accepted: sign in with an owner token of your account',
  );
const notSignedIn = () => new RelayError('unauthenticated', 'not signed in');

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

export function sessionRouter(relay: Relay): Router {
  const router = Router();
  const { config } = relay;

  /** The session this request's cookie holds, if it is still good (nothing counted). */
  async function currentSession(req: Request) {
    const token = sessionCookie(req);
    if (!token || !parseToken(token)) return null;
    try {
      const auth = await relay.authorize({ ...tokenCaller(token), count: false });
      return auth.session ? auth : null;
    } catch (err) {
      if (isCredentialRefusal(err)) return null;
      throw err;
    }
  }

  resource(router, '/dashboard/api/session', {
    post: async (req, res) => {
      checkSameOrigin(req, false, req.protocol);
      const body = objectBody(req.body);
      if (typeof body.token !== 'string' || body.token === '')
        throw invalidField('required field token is missing');
      let auth;
      try {
        // counted against the rate limits with the check, in one call
        auth = await relay.authorize(tokenCaller(body.token));
      } catch (err) {
        if (isCredentialRefusal(err)) throw wrongToken();
        throw err;
      }
      if (auth.role !== 'owner' || auth.session) throw wrongToken();
      // A page signed in to one account is never moved to another on a request's word alone
      // (a link can be crafted with another account's token): it must ask for the switch.
      const current = await currentSession(req);
      if (current && current.accountId !== auth.accountId && body.switch !== true) {
        throw new RelayError(
          'conflict',
          `signed in to account ${current.accountId}; this token is of account ${auth.accountId}: sign in again with "switch": true to switch`,
        );
      }
      const ttl = config.sessionTtlSeconds;
      const issued = await relay.tokens.issue(auth.accountId, {
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
      if (!token) throw notSignedIn();
      const auth = await relay.authorize({ ...tokenCaller(token), count: false });
      if (!auth.session) throw notSignedIn();
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
        const auth = await relay.authorize({ ...tokenCaller(token), count: false });
        if (auth.session) await relay.tokens.revoke(auth.accountId, auth.tokenId);
      } catch (err) {
        if (!isCredentialRefusal(err)) throw err;
      }
      return { signed_out: true };
    },
  });

  return router;
}
