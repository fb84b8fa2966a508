/**
 * GET /v1/relay/whoami: what a token may do, for the token itself (any role):
 * its account, role, channels and expiry, never its secret. `relayq whoami`
 * shows it; relay tokens cannot read the account API.
 */
import { Router } from 'express';
import type { Relay } from '../relay';
import { resource } from '../web/route';
import { requestAuth } from '../web/caller';

export function whoamiRouter(relay: Relay): Router {
  const router = Router();
  resource(router, '/v1/relay/whoami', {
    get: async (req) => {
      const auth = await requestAuth(req, relay);
      return {
        account: auth.accountId,
        token_id: auth.tokenId,
        role: auth.role,
        channels: auth.channels,
        expires_ms: auth.expiresMs,
        plan: auth.plan,
      };
    },
  });
  return router;
}
