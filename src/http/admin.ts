/**
 * The operator API (docs/api/admin.md): accounts and their tokens.
 * Mounted only when RELAY_ADMIN_TOKEN is set; otherwise every path is a 404.
 */
import { Router, type Request } from 'express';
import { authenticate } from '../auth/authenticate';
import { formatToken, hashSecret, newSecret, newTokenId, safeEqual } from '../auth/tokens';
import { AppError, badRequest, forbidden, notFound, unauthorized } from '../errors';
import { describeIdRule, isValidId } from '../schemas/ids';
import {
  validateAccountCreate,
  validateAccountPatch,
  validateTokenCreate,
} from '../schemas/requests';
import type { AccountRecord, AccountStore, TokenRecord } from '../store/types';
import type { PlanResolver } from '../config/planResolver';
import { bearerToken, headerCaller } from '../auth/authenticate';
import { credentialsFor, type AwsCredentials } from '../sqs/credentials';
import { objectBody } from './body';
import type { HttpDeps } from './context';
import { resource } from './route';

/** The token as shown to its owner: everything but the hash. */
export function publicToken(token: TokenRecord): Omit<TokenRecord, 'hash'> {
  const { hash: _hash, ...shown } = token;
  return shown;
}

/**
 * Creates a token for an account and returns it with its secret (shown only
 * here); with aws_credentials, also the AWS key pair that signs as this token
 * on the SQS endpoint (its secret derived from sqsSecretKey, never stored).
 */
export async function issueToken(
  accounts: AccountStore,
  accountId: string,
  input: {
    name?: string;
    channels?: string[];
    expires_in_seconds?: number;
    role?: 'relay' | 'owner';
    kind?: 'session';
    parent_id?: string;
    rate_limit_per_second?: number;
    aws_credentials?: boolean;
  },
  options: {
    /** the plan's max_tokens; 0 (dashboard sessions) is not checked */
    maxTokens?: number;
    /** RELAY_SQS_SECRET_KEY: AWS credentials are derived from it */
    sqsSecretKey?: string | null;
  } = {},
): Promise<Omit<TokenRecord, 'hash'> & { token: string } & Partial<AwsCredentials>> {
  const { maxTokens = 0, sqsSecretKey = null } = options;
  if (input.aws_credentials && sqsSecretKey === null) {
    throw badRequest(
      'aws_credentials needs the server setting RELAY_SQS_SECRET_KEY; ask the operator to set it',
    );
  }
  const id = newTokenId();
  const aws = input.aws_credentials ? credentialsFor(sqsSecretKey!, accountId, id) : null;
  const secret = newSecret();
  const now = Date.now();
  const record: TokenRecord = {
    id,
    name: input.name ?? null,
    channels: input.channels ? [...new Set(input.channels)] : null,
    expires_ms: input.expires_in_seconds ? now + input.expires_in_seconds * 1000 : null,
    created_ms: now,
    role: input.role ?? 'relay',
    hash: hashSecret(secret),
    ...(input.kind ? { kind: input.kind, parent_id: input.parent_id } : {}),
    ...(input.rate_limit_per_second ? { rate_limit_per_second: input.rate_limit_per_second } : {}),
    ...(aws ? { aws_access_key_id: aws.aws_access_key_id } : {}),
  };
  await accounts.createToken(accountId, record, maxTokens);
  return { ...publicToken(record), token: formatToken(accountId, id, secret), ...aws };
}

/** An account as the operator API shows it (docs/api/admin.md). */
function shownAccount(account: AccountRecord): Pick<AccountRecord, 'id' | 'plan' | 'usage'> {
  return { id: account.id, plan: account.plan, usage: account.usage };
}

function accountParam(req: Request): string {
  const id = String(req.params.accountId);
  if (!isValidId(id)) throw badRequest(describeIdRule('accountId'));
  return id;
}

function checkPlan(plans: PlanResolver, plan: string): void {
  if (!plans.has(plan)) throw badRequest(`plan must be one of ${plans.names().join(', ')}`);
}

export function adminRouter(deps: HttpDeps, adminToken: string): Router {
  const router = Router();
  const { store, plans, config } = deps;
  const accounts = store.accounts;

  /** Admin token: go on. A valid relay token: 403. Anything else: 401. */
  router.use('/v1/admin', async (req, _res, next) => {
    deps.limits.enforceOperator();
    const token = bearerToken(req.headers.authorization);
    if (safeEqual(token, adminToken)) return next();
    let isRelayToken = false;
    try {
      await authenticate(
        { ...headerCaller(req.headers.authorization), count: false },
        accounts,
        plans,
      );
      isRelayToken = true;
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 401) throw err;
    }
    if (isRelayToken)
      throw forbidden('the operator API needs the admin token; relay tokens may not use it');
    throw unauthorized('invalid admin token');
  });

  resource(router, '/v1/admin/accounts', {
    post: async (req) => {
      const input = validateAccountCreate(objectBody(req.body));
      const plan = input.plan ?? config.defaultPlan;
      checkPlan(plans, plan);
      const account = await accounts.create(input.id, plan);
      return { id: account.id, plan: account.plan };
    },
  });

  resource(router, '/v1/admin/accounts/:accountId', {
    get: async (req) => {
      const id = accountParam(req);
      const account = await accounts.get(id);
      if (!account) throw notFound(`account ${id} does not exist`);
      return shownAccount(account);
    },
    patch: async (req) => {
      const id = accountParam(req);
      const input = validateAccountPatch(objectBody(req.body));
      checkPlan(plans, input.plan);
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
      const account = await accounts.get(id);
      if (!account) throw notFound(`account ${id} does not exist`);
      const issued = await issueToken(accounts, id, input, {
        maxTokens: plans.limits(account.plan).max_tokens,
        sqsSecretKey: config.sqsSecretKey,
      });
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
      const tokens = await accounts.listTokens(id);
      if (!tokens) throw notFound(`account ${id} does not exist`);
      return { tokens: tokens.map(publicToken) };
    },
  });

  resource(router, '/v1/admin/accounts/:accountId/tokens/:tokenId', {
    delete: async (req) => {
      const id = accountParam(req);
      const tokenId = String(req.params.tokenId);
      if (!/^[0-9a-f]{16}$/.test(tokenId))
        throw notFound(`token ${tokenId} does not exist in account ${id}`);
      await accounts.revokeToken(id, tokenId);
      return { id: tokenId, revoked: true };
    },
  });

  return router;
}
