/**
 * The account API (an extension for account owners and the dashboard):
 * the caller's own account and its tokens, with the operator API's shapes and
 * rules. Needs an owner token (or a dashboard session); a relay token gets 403.
 */
import { Router, type Request } from 'express';
import { checkOwner, publicToken, type Relay } from '../relay';
import { validateTokenCreate } from '../schemas/requests';
import { objectBody } from '../web/body';
import { resource } from '../web/route';
import { requestAuth } from '../web/caller';

export function accountRouter(relay: Relay): Router {
  const router = Router();
  const owner = async (req: Request) => {
    const auth = await requestAuth(req, relay);
    checkOwner(auth);
    return auth;
  };

  resource(router, '/v1/account', {
    get: async (req) => relay.accounts.view((await owner(req)).accountId),
  });

  resource(router, '/v1/account/tokens', {
    get: async (req) => {
      const auth = await owner(req);
      const tokens = (await relay.tokens.list(auth.accountId)) ?? [];
      return { tokens: tokens.filter((t) => t.kind !== 'session').map(publicToken) };
    },
    post: async (req) => {
      const auth = await owner(req);
      const input = validateTokenCreate(objectBody(req.body));
      return relay.tokens.issue(auth.accountId, input, true);
    },
  });

  resource(router, '/v1/account/tokens/:tokenId', {
    delete: async (req) => {
      const auth = await owner(req);
      const tokenId = String(req.params.tokenId);
      await relay.tokens.revoke(auth.accountId, tokenId);
      return { id: tokenId, revoked: true };
    },
  });

  return router;
}
