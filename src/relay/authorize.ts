/**
 * Who the caller is and what it may do, for operations that are not one script call: one
 * `authorize` call checks the credential (lua/lib/caller.lua) and counts the request against
 * the rate limits. The operations that are one script call check the caller inside it.
 */
import { RelayError, forbidden } from '../errors';
import type { PlanResolver } from '../config/planResolver';
import type { Authorized } from '../store/types';
import type { Caller, PlanLimits } from '../types';
import type { RelayDeps } from './deps';

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
 * Checks the caller and, when caller.count, counts its request against the rate limits, in
 * one call; channel, when given, is checked against the token's scope (channel_scope).
 */
export async function authorize(
  deps: Pick<RelayDeps, 'store' | 'plans'>,
  caller: Caller,
  channel: string | null = null,
): Promise<AuthContext> {
  return authContext(caller, await deps.store.accounts.authorize(caller, channel), deps.plans);
}

/** channel_scope unless the token may use the channel. */
export function checkChannelScope(auth: AuthContext, channel: string): void {
  if (auth.channels !== null && !auth.channels.includes(channel)) {
    throw new RelayError('channel_scope', `this token may not use channel ${channel}`);
  }
}

/** forbidden unless the caller holds an owner token (or a dashboard session). */
export function checkOwner(auth: AuthContext): void {
  if (auth.role !== 'owner') {
    throw forbidden('this endpoint needs an owner token; relay tokens may not manage the account');
  }
}
