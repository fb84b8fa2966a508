/**
 * Relay API tokens. A token reads `rq_<token id><secret>_<account id>`: the
 * token id (16 hex) finds the record, the secret (43 base64url characters,
 * 256 random bits) proves it, and the account id names the hash tag its record
 * lives under. Only sha256(secret) is stored; it is compared in constant time.
 */
import crypto from 'node:crypto';
import { ID_PATTERN } from '../schemas/ids';

const PREFIX = 'rq_';
const TOKEN_ID_CHARS = 16;
const SECRET_CHARS = 43;

export interface ParsedToken {
  tokenId: string;
  secret: string;
  accountId: string;
}

export function newTokenId(): string {
  return crypto.randomBytes(TOKEN_ID_CHARS / 2).toString('hex');
}

export function newSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function formatToken(accountId: string, tokenId: string, secret: string): string {
  return `${PREFIX}${tokenId}${secret}_${accountId}`;
}

export function parseToken(token: string): ParsedToken | null {
  if (!token.startsWith(PREFIX) || token.length > 512) return null;
  const tokenId = token.slice(PREFIX.length, PREFIX.length + TOKEN_ID_CHARS);
  const secret = token.slice(
    PREFIX.length + TOKEN_ID_CHARS,
    PREFIX.length + TOKEN_ID_CHARS + SECRET_CHARS,
  );
  const rest = token.slice(PREFIX.length + TOKEN_ID_CHARS + SECRET_CHARS);
  if (
    !/^[0-9a-f]{16}$/.test(tokenId) ||
    !/^[A-Za-z0-9_-]{43}$/.test(secret) ||
    !rest.startsWith('_')
  ) {
    return null;
  }
  const accountId = rest.slice(1);
  if (!ID_PATTERN.test(accountId)) return null;
  return { tokenId, secret, accountId };
}

export function hashSecret(secret: string): string {
  return crypto.hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}
