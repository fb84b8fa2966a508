/**
 * Turns an Authorization header into the caller's account, scope and plan, or
 * a 401. Used alike by HTTP requests and WebSocket upgrades. The token is read
 * from Redis on every request, so a revocation takes effect on every pod from
 * the next request on.
 */
import { forbidden, unauthorized } from '../errors';
import type { PlanResolver } from '../plans';
import type { AccountStore, PlanLimits, TokenRecord } from '../store/types';
import { hashSecret, parseToken, safeEqual } from './tokens';

export interface AuthContext {
  accountId: string;
  tokenId: string;
  /** channels the token may use; null = every channel of the account */
  channels: string[] | null;
  role: 'relay' | 'owner';
  /** true when the caller is a dashboard session (cookie), not a bearer token */
  session: boolean;
  expiresMs: number | null;
  plan: string;
  limits: PlanLimits;
  /** the token's own request rate (below the account's), if it has one */
  tokenRatePerSecond: number | null;
  /** a dashboard session's sign-in token: its revocation ends the session */
  parentTokenId: string | null;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of a `Bearer <token>` header; the scheme is case-insensitive (RFC 7235). */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw unauthorized('missing Authorization header; send Authorization: Bearer <token>');
  }
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('malformed Authorization header; expected Bearer <token>');
  return match[1];
}

export async function authenticate(
  header: string | undefined,
  accounts: AccountStore,
  plans: PlanResolver,
): Promise<AuthContext> {
  const parsed = parseToken(bearerToken(header));
  if (!parsed) throw unauthorized('invalid token');
  const { token, plan } = await accounts.lookupToken(parsed.accountId, parsed.tokenId);
  if (!token || plan === null || !safeEqual(hashSecret(parsed.secret), token.hash)) {
    throw unauthorized('invalid or revoked token');
  }
  return tokenContext(parsed.accountId, token, plan, accounts, plans);
}

/**
 * The context of a token the caller has proved to hold (bearer secret, or an
 * AWS signature made with its derived secret): refused once it has expired,
 * or, for a dashboard session, once its sign-in token is gone.
 */
export async function tokenContext(
  accountId: string,
  token: TokenRecord,
  plan: string,
  accounts: AccountStore,
  plans: PlanResolver,
): Promise<AuthContext> {
  if (token.expires_ms !== null && token.expires_ms <= Date.now()) {
    throw unauthorized(
      token.kind === 'session' ? 'session has expired; sign in again' : 'token has expired',
    );
  }
  if (token.parent_id) {
    // a dashboard session lives only as long as the owner token it was opened with
    const parent = (await accounts.lookupToken(accountId, token.parent_id)).token;
    if (!parent || (parent.expires_ms !== null && parent.expires_ms <= Date.now())) {
      throw unauthorized('session has ended: its sign-in token was revoked or expired');
    }
  }
  return {
    accountId,
    tokenId: token.id,
    channels: token.channels,
    role: token.role ?? 'relay',
    session: token.kind === 'session',
    expiresMs: token.expires_ms,
    plan,
    limits: plans.limits(plan),
    tokenRatePerSecond: token.rate_limit_per_second ?? null,
    parentTokenId: token.parent_id ?? null,
  };
}

/** 403 unless the token may use the channel. */
export function checkChannelScope(auth: AuthContext, channel: string): void {
  if (auth.channels !== null && !auth.channels.includes(channel)) {
    throw forbidden(`this token may not use channel ${channel}`);
  }
}

/** 403 unless the caller holds an owner token (or a dashboard session). */
export function checkOwner(auth: AuthContext): void {
  if (auth.role !== 'owner') {
    throw forbidden('this endpoint needs an owner token; relay tokens may not manage the account');
  }
}
