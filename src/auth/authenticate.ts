/**
 * Turns a credential into the caller's account, scope and plan, or a 401. Used alike by
 * HTTP requests and WebSocket upgrades. Reading the credential needs no Redis; checking it
 * does, inside the one script call that serves the request (lua/lib/caller.lua), or through
 * the authorize script where the request is not one script call. The token is read on
 * every request, so a revocation takes effect on every pod from the next request on.
 */
import { forbidden, unauthorized } from '../errors';
import type { PlanResolver } from '../config/planResolver';
import type { Caller } from '../store/scripts/define';
import type { AccountStore, Authorized, PlanLimits } from '../store/types';
import { hashSecret, parseToken } from './tokens';

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

/**
 * The caller a bearer token names, proved by its secret's hash (checked by the script), or
 * a 401 for a missing, malformed or impossible token. No Redis.
 */
export function tokenCaller(token: string): Caller {
  const parsed = parseToken(token);
  if (!parsed) throw unauthorized('invalid token');
  return {
    accountId: parsed.accountId,
    tokenId: parsed.tokenId,
    proof: `secret:${hashSecret(parsed.secret)}`,
    count: true,
  };
}

/** The caller of an Authorization header (tokenCaller), or the 401 it deserves. */
export function headerCaller(header: string | undefined): Caller {
  return tokenCaller(bearerToken(header));
}

/** The context of a caller that passed the check (authorize, or a queue script). */
export function authContext(
  caller: Caller,
  { token, plan }: Authorized,
  plans: PlanResolver,
): AuthContext {
  if (!token) throw new Error('authContext needs a token caller');
  return {
    accountId: caller.accountId,
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

/**
 * Checks the caller and counts its request against the rate limits in one call; channel,
 * when given, is checked against the token's scope (403).
 */
export async function authenticate(
  caller: Caller,
  accounts: AccountStore,
  plans: PlanResolver,
  channel: string | null = null,
): Promise<AuthContext> {
  return authContext(caller, await accounts.authorize(caller, channel), plans);
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
