/**
 * The operator API (docs/api/admin.md): accounts and their tokens.
 * Mounted only when RELAY_ADMIN_TOKEN is set; otherwise every path is a 404.
 */
import { Router, type Request } from 'express';
import { bearerToken, headerCaller } from '../auth/credential';
import { safeEqual } from '../auth/tokens';
import { RelayError, forbidden, invalidField, isCredentialRefusal } from '../errors';
import { accountNotFound, publicToken, type AccountRecord, type Relay } from '../relay';
import { describeIdRule, isValidId } from '../schemas/ids';
import {
  validateAccountCreate,
  validateAccountPatch,
  validateTokenCreate,
} from '../schemas/requests';
import { objectBody } from '../web/body';
import { resource } from '../web/route';

/** An account as the operator API shows it (docs/api/admin.md). */
function shownAccount(account: AccountRecord): Pick<AccountRecord, 'id' | 'plan' | 'usage'> {
  return { id: account.id, plan: account.plan, usage: account.usage };
}

function accountParam(req: Request): string {
  const id = String(req.params.accountId);
  if (!isValidId(id)) throw invalidField(describeIdRule('accountId'));
  return id;
}

export function adminRouter(relay: Relay, adminToken: string): Router {
  const router = Router();
  const { accounts, tokens } = relay;

  /** Admin token: go on. A valid relay token: 403. Anything else: 401. */
  router.use('/v1/admin', async (req, _res, next) => {
    relay.limits.enforceOperator();
    const token = bearerToken(req.headers.authorization);
    if (safeEqual(token, adminToken)) return next();
    let isRelayToken = false;
    try {
      await relay.authorize({ ...headerCaller(req.headers.authorization), count: false });
      isRelayToken = true;
    } catch (err) {
      if (!isCredentialRefusal(err)) throw err;
    }
    if (isRelayToken)
      throw forbidden('the operator API needs the admin token; relay tokens may not use it');
    throw new RelayError('invalid_credential', 'invalid admin token');
  });

  resource(router, '/v1/admin/accounts', {
    post: async (req) => {
      const input = validateAccountCreate(objectBody(req.body));
      const account = await accounts.create(input.id, input.plan);
      return { id: account.id, plan: account.plan };
    },
  });

  resource(router, '/v1/admin/accounts/:accountId', {
    get: async (req) => {
      return shownAccount(await accounts.get(accountParam(req)));
    },
    patch: async (req) => {
      const id = accountParam(req);
      const input = validateAccountPatch(objectBody(req.body));
      return shownAccount(await accounts.setPlan(id, input.plan));
    },
    delete: async (req) => {
      const id = accountParam(req);
      await accounts.remove(id);
      return { id, deleted: true };
    },
  });

  resource(router, '/v1/admin/accounts/:accountId/tokens', {
    post: async (req) => {
      const id = accountParam(req);
      const input = validateTokenCreate(objectBody(req.body));
      await accounts.get(id); // account_not_found (404) before anything is written
      const issued = await tokens.issue(id, input, true);
      const { token, name, channels, expires_ms, aws_access_key_id, aws_secret_access_key } =
        issued;
      return {
        id: issued.id,
        token,
        name,
        channels,
        expires_ms,
        ...(aws_access_key_id ? { aws_access_key_id, aws_secret_access_key } : {}),
      };
    },
    get: async (req) => {
      const id = accountParam(req);
      const all = await tokens.list(id);
      if (!all) throw accountNotFound(id);
      return { tokens: all.map(publicToken) };
    },
  });

  resource(router, '/v1/admin/accounts/:accountId/tokens/:tokenId', {
    delete: async (req) => {
      const id = accountParam(req);
      const tokenId = String(req.params.tokenId);
      await tokens.revoke(id, tokenId);
      return { id: tokenId, revoked: true };
    },
  });

  return router;
}
