/**
 * AWS credentials for relay tokens. The access key id names the token:
 * `RQ<token id, 16 hex><account id>` (the token id has a fixed length, so the
 * rest is the account id: one lookup in the account's hash slot). The secret
 * is never stored in Redis: it is HMAC-SHA256(RELAY_SQS_SECRET_KEY, access key id),
 * derived again to check a signature (src/sqs/auth.ts keeps the latest ones, keyed
 * by the server key and the key id). Rotating the server
 * key therefore retires every issued secret at once (docs/sqs.md).
 */
import crypto from 'node:crypto';
import { ID_PATTERN } from '../schemas/ids';

const PREFIX = 'RQ';
const TOKEN_ID = /^[0-9a-f]{16}$/;

export interface AwsCredentials {
  aws_access_key_id: string;
  aws_secret_access_key: string;
}

export function accessKeyIdFor(accountId: string, tokenId: string): string {
  return `${PREFIX}${tokenId}${accountId}`;
}

/** The account and token an access key id names, or null when it is not one of ours. */
export function parseAccessKeyId(keyId: string): { accountId: string; tokenId: string } | null {
  if (!keyId.startsWith(PREFIX)) return null;
  const tokenId = keyId.slice(PREFIX.length, PREFIX.length + 16);
  const accountId = keyId.slice(PREFIX.length + 16);
  if (!TOKEN_ID.test(tokenId) || !ID_PATTERN.test(accountId)) return null;
  return { accountId, tokenId };
}

export function secretFor(serverKey: string, accessKeyId: string): string {
  return crypto
    .createHmac('sha256', serverKey)
    .update(`relayq-sqs-secret:${accessKeyId}`)
    .digest('base64url');
}

export function credentialsFor(
  serverKey: string,
  accountId: string,
  tokenId: string,
): AwsCredentials {
  const keyId = accessKeyIdFor(accountId, tokenId);
  return { aws_access_key_id: keyId, aws_secret_access_key: secretFor(serverKey, keyId) };
}
