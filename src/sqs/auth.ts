/**
 * Who signed an SQS request: the AWS access key id names a relay token, the
 * secret is derived from the server key (credentials.ts), and the token is
 * read from Redis on every request, as bearer tokens are, so that revoking it
 * stops its AWS key on every pod at once. The pair acts as the token: same
 * account, channel scope, expiry and rate limit.
 */
import type { Request } from 'express';
import { authContext, type AuthContext } from '../auth/authenticate';
import type { HttpDeps } from '../http/context';
import type { Caller } from '../store/scripts/define';
import { parseAccessKeyId, secretFor } from './credentials';
import { INVALID_KEY, SqsError, toSqsError } from './errors';
import { parseAuthorization, signingDate, verifySignature } from './signature';

export interface SqsCaller {
  auth: AuthContext;
  /** for the queue scripts, which check it again (not counting it) in their one call */
  caller: Caller;
  region: string;
}

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
  // state is told only to a caller who signed with its secret. The signature needs no
  // Redis (the secret is derived from the key), so a good one is checked first and the
  // key's token read only to word a bad one.
  const find = async () => {
    const { token, plan } = await deps.store.accounts.lookupToken(ids.accountId, ids.tokenId);
    if (!token || plan === null || token.aws_access_key_id !== signed.accessKeyId) {
      throw new SqsError('InvalidClientTokenId', INVALID_KEY);
    }
  };
  // the signature proves the token: the scripts then check that the key is still its own
  const caller: Caller = {
    accountId: ids.accountId,
    tokenId: ids.tokenId,
    proof: `aws:${signed.accessKeyId}`,
    count: true,
  };
  /** the key still its token's, expiry, a session's sign-in token, the rate limits: one call */
  const contextOf = async () => {
    try {
      return authContext(caller, await deps.store.accounts.authorize(caller, null), deps.plans);
    } catch (err) {
      throw toSqsError(err);
    }
  };

  const url = new URL(req.originalUrl, 'http://relayq');
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  try {
    await verifySignature(
      signed,
      { method: req.method, path: url.pathname, query, headers: req.headers, body },
      date,
      secretFor(serverKey, signed.accessKeyId),
    );
  } catch (err) {
    await find();
    throw err;
  }
  // an unknown or revoked key is refused here as InvalidClientTokenId (toSqsError)
  return {
    auth: await contextOf(),
    caller: { ...caller, count: false },
    region: signed.region,
  };
}
