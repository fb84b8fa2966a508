/**
 * Who signed an SQS request: the AWS access key id names a relay token, the
 * secret is derived from the server key (credentials.ts), and the token is
 * read from Redis on every request, as bearer tokens are, so that revoking it
 * stops its AWS key on every pod at once. The pair acts as the token: same
 * account, channel scope, expiry and rate limit.
 */
import type { Request } from 'express';
import { tokenContext, type AuthContext } from '../auth/authenticate';
import type { HttpDeps } from '../http/context';
import type { TokenRecord } from '../store/types';
import { parseAccessKeyId, secretFor } from './credentials';
import { SqsError, toSqsError } from './errors';
import { parseAuthorization, signingDate, verifySignature } from './signature';

export interface SqsCaller {
  auth: AuthContext;
  region: string;
  recheck(): Promise<void>;
}

const INVALID_KEY = 'The security token included in the request is invalid.';

export async function authenticateSqs(
  req: Request,
  body: Buffer,
  deps: HttpDeps,
): Promise<SqsCaller> {
  const signed = parseAuthorization(req.headers.authorization);
  const date = signingDate(signed, req.headers, Date.now());
  if (signed.service !== 'sqs') {
    throw new SqsError(
      'SignatureDoesNotMatch',
      `Credential should be scoped to correct service: 'sqs', not '${signed.service}'.`,
    );
  }
  const serverKey = deps.config.sqsSecretKey;
  if (serverKey === null) {
    throw new SqsError(
      'InvalidClientTokenId',
      'AWS credentials are not enabled on this server (RELAY_SQS_SECRET_KEY is not set).',
    );
  }
  const ids = parseAccessKeyId(signed.accessKeyId);
  if (!ids) throw new SqsError('InvalidClientTokenId', INVALID_KEY);

  // unknown keys first (as AWS), then the signature, then expiry: an expired token's
  // state is told only to a caller who signed with its secret
  const find = async () => {
    const { token, plan } = await deps.store.accounts.lookupToken(ids.accountId, ids.tokenId);
    if (!token || plan === null || token.aws_access_key_id !== signed.accessKeyId) {
      throw new SqsError('InvalidClientTokenId', INVALID_KEY);
    }
    return { token, plan };
  };
  const contextOf = async (found: { token: TokenRecord; plan: string }) => {
    try {
      return await tokenContext(
        ids.accountId,
        found.token,
        found.plan,
        deps.store.accounts,
        deps.plans,
      );
    } catch (err) {
      throw toSqsError(err);
    }
  };

  const found = await find();
  const url = new URL(req.originalUrl, 'http://relayq');
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  await verifySignature(
    signed,
    { method: req.method, path: url.pathname, query, headers: req.headers, body },
    date,
    secretFor(serverKey, signed.accessKeyId),
  );
  const first = await contextOf(found);
  try {
    await deps.limits.enforce(first);
  } catch (err) {
    throw toSqsError(err);
  }
  return {
    auth: first,
    region: signed.region,
    recheck: async () => {
      await contextOf(await find());
    },
  };
}
