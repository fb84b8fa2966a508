/**
 * Tokens of an account: issue (the secret is shown once; with aws_credentials also the AWS
 * key pair that signs as the token on the SQS endpoint, src/auth/awsKeys.ts), list, revoke.
 * Dashboard sessions are tokens too (kind 'session', tied to their sign-in token).
 */
import { credentialsFor, type AwsCredentials } from '../auth/awsKeys';
import { formatToken, hashSecret, newSecret, newTokenId } from '../auth/tokens';
import { RelayError, invalidField } from '../errors';
import type { TokenInput } from '../schemas/requests';
import type { TokenRecord } from '../store/types';
import type { RelayDeps } from './deps';

export interface TokenToIssue extends TokenInput {
  kind?: 'session';
  parent_id?: string;
}

export type PublicToken = Omit<TokenRecord, 'hash'>;
export type IssuedToken = PublicToken & { token: string } & Partial<AwsCredentials>;

/** The token as shown to its owner: everything but the hash. */
export function publicToken(token: TokenRecord): PublicToken {
  const { hash: _hash, ...shown } = token;
  return shown;
}

export const tokenNotFound = (account: string, tokenId: string) =>
  new RelayError('token_not_found', `token ${tokenId} does not exist in account ${account}`);

const TOKEN_ID = /^[0-9a-f]{16}$/;

export function createTokens(deps: RelayDeps) {
  const { store, config } = deps;
  return {
    /**
     * Creates a token and returns it with its secret (shown only here). counted: held within
     * the plan's max_tokens (false, for dashboard sessions: not checked).
     */
    async issue(accountId: string, input: TokenToIssue, counted = false): Promise<IssuedToken> {
      const sqsSecretKey = config.sqsSecretKey;
      if (input.aws_credentials && sqsSecretKey === null) {
        throw invalidField(
          'aws_credentials needs the server setting RELAY_SQS_SECRET_KEY; ask the operator to set it',
        );
      }
      const id = newTokenId();
      const aws = input.aws_credentials ? credentialsFor(sqsSecretKey!, accountId, id) : null;
      const secret = newSecret();
      const now = deps.clock();
      const record: TokenRecord = {
        id,
        name: input.name ?? null,
        channels: input.channels ? [...new Set(input.channels)] : null,
        expires_ms: input.expires_in_seconds ? now + input.expires_in_seconds * 1000 : null,
        created_ms: now,
        role: input.role ?? 'relay',
        hash: hashSecret(secret),
        ...(input.kind ? { kind: input.kind, parent_id: input.parent_id } : {}),
        ...(input.rate_limit_per_second
          ? { rate_limit_per_second: input.rate_limit_per_second }
          : {}),
        ...(aws ? { aws_access_key_id: aws.aws_access_key_id } : {}),
      };
      await store.accounts.createToken(accountId, record, counted);
      return { ...publicToken(record), token: formatToken(accountId, id, secret), ...aws };
    },

    /** The account's tokens (sessions included), or null when the account does not exist. */
    async list(accountId: string): Promise<TokenRecord[] | null> {
      return store.accounts.listTokens(accountId);
    },

    async revoke(accountId: string, tokenId: string): Promise<void> {
      if (!TOKEN_ID.test(tokenId)) throw tokenNotFound(accountId, tokenId);
      await store.accounts.revokeToken(accountId, tokenId);
    },

    /** A token's record and its account's plan, read only: nothing counted, nothing refused. */
    async state(accountId: string, tokenId: string) {
      return store.accounts.lookupToken(accountId, tokenId);
    },
  };
}

export type Tokens = ReturnType<typeof createTokens>;
