/**
 * Who signed an SQS request: the AWS access key id names a relay token (src/auth/awsKeys.ts),
 * its secret is derived from the server key, and the signature is checked here, with no
 * Redis. The token itself (still there, still holding this key, not expired) is checked by
 * the script call that serves the request, as bearer tokens are, so revoking it stops its
 * AWS key on every pod at once. The pair acts as the token: same account, channel scope,
 * expiry and rate limit.
 */
import type { Request } from 'express';
import { parseAccessKeyId, secretFor } from '../auth/awsKeys';
import { awsCaller } from '../auth/credential';
import type { Relay } from '../relay';
import type { Caller } from '../types';
import { INVALID_KEY, SqsError } from './errors';
import { parseAuthorization, signingDate, verifySignature } from './signature';

export interface SqsSigner {
  /** the caller as the scripts check it (proved by the signature) */
  caller: Caller;
  region: string;
}

/**
 * Headers a JSON-protocol request must sign, besides Host and X-Amz-Date: they say what the
 * request does (a request signed without its X-Amz-Target could be replayed as another
 * action). A query-protocol request names its action in the signed body or query string.
 */
const JSON_SIGNED_HEADERS = ['x-amz-target', 'content-type'];

/** A cache of the values of the latest `max` keys, the oldest dropped first. */
function recentCache<V>(max: number): (key: string, make: () => V) => V {
  const values = new Map<string, V>();
  return (key, make) => {
    let value = values.get(key);
    if (value === undefined) {
      value = make();
      if (values.size >= max) values.delete(values.keys().next().value as string);
      values.set(key, value);
    }
    return value;
  };
}

/** The secrets of the latest access key ids (each an HMAC of the server key). */
const secrets = recentCache<string>(1000);
const secretOf = (serverKey: string, accessKeyId: string) =>
  secrets(`${serverKey}\n${accessKeyId}`, () => secretFor(serverKey, accessKeyId));

export async function authenticateSqs(
  req: Request,
  body: Buffer,
  relay: Relay,
  protocol: 'json' | 'query' = 'json',
): Promise<SqsSigner> {
  const signed = parseAuthorization(req.headers.authorization);
  if (protocol === 'json') {
    for (const name of JSON_SIGNED_HEADERS) {
      if (req.headers[name] !== undefined && !signed.signedHeaders.includes(name)) {
        throw new SqsError('IncompleteSignature', `the ${name} header must be signed`);
      }
    }
  }
  const date = signingDate(signed, req.headers, Date.now());
  if (signed.service !== 'sqs') {
    throw new SqsError(
      'SignatureDoesNotMatch',
      `Credential should be scoped to correct service: 'sqs', not '${signed.service}'.`,
    );
  }
  const serverKey = relay.config.sqsSecretKey;
  if (serverKey === null) {
    throw new SqsError(
      'InvalidClientTokenId',
      'AWS credentials are not enabled on this server (RELAY_SQS_SECRET_KEY is not set).',
    );
  }
  const ids = parseAccessKeyId(signed.accessKeyId);
  if (!ids) throw new SqsError('InvalidClientTokenId', INVALID_KEY);

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
      secretOf(serverKey, signed.accessKeyId),
    );
  } catch (err) {
    // unknown keys first (as AWS), then the signature: the key's token is read only to word
    // a refusal, so that a bad signature with an unknown key is told as an unknown key
    const { token, plan } = await relay.tokens.state(ids.accountId, ids.tokenId);
    if (!token || plan === null || token.aws_access_key_id !== signed.accessKeyId) {
      throw new SqsError('InvalidClientTokenId', INVALID_KEY);
    }
    throw err;
  }
  return { caller: awsCaller(ids, signed.accessKeyId), region: signed.region };
}
