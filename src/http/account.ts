/**
 * The account API (an extension for account owners and the dashboard):
 * the caller's own account and its tokens, with the operator API's shapes and
 * rules. Needs an owner token (or a dashboard session); a relay token gets 403.
 */
import { Router, type Request } from 'express';
import { checkOwner } from '../auth/authenticate';
import { requestAuth } from './caller';
import { notFound } from '../errors';
import { LIMITS, validateTokenCreate } from '../schemas/requests';
import { issueToken, publicToken } from './admin';
import { objectBody } from './body';
import type { HttpDeps } from './context';
import { resource } from './route';

export function accountRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store, plans } = deps;
  const owner = async (req: Request) => {
    const auth = await requestAuth(req, deps);
    checkOwner(auth);
    return auth;
  };

  resource(router, '/v1/account', {
    get: async (req) => {
      const auth = await owner(req);
      const account = await store.accounts.get(auth.accountId);
      if (!account) throw notFound(`account ${auth.accountId} does not exist`);
      return {
        ...account,
        limits: { ...plans.limits(account.plan), max_message_bytes: LIMITS.maxMessageBytes },
      };
    },
  });

  resource(router, '/v1/account/tokens', {
    get: async (req) => {
      const auth = await owner(req);
      const tokens = (await store.accounts.listTokens(auth.accountId)) ?? [];
      return { tokens: tokens.filter((t) => t.kind !== 'session').map(publicToken) };
    },
    post: async (req) => {
      const auth = await owner(req);
      const input = validateTokenCreate(objectBody(req.body));
      return issueToken(store.accounts, auth.accountId, input, {
        maxTokens: auth.limits.max_tokens,
        sqsSecretKey: deps.config.sqsSecretKey,
      });
    },
  });

  resource(router, '/v1/account/tokens/:tokenId', {
    delete: async (req) => {
      const auth = await owner(req);
      const tokenId = String(req.params.tokenId);
      if (!/^[0-9a-f]{16}$/.test(tokenId))
        throw notFound(`token ${tokenId} does not exist in account ${auth.accountId}`);
      await store.accounts.revokeToken(auth.accountId, tokenId);
      return { id: tokenId, revoked: true };
    },
  });

  return router;
}
