/** Types every layer shares (entrances, relay/, the store); this module imports nothing of them. */
import type { Plan } from './config/plans';

/**
 * Who is asking, as the scripts check it (lua/lib/caller.lua): the token named by a
 * credential and the proof of holding it. Made from a credential by src/auth/credential.ts.
 */
export interface Caller {
  accountId: string;
  /** the token's id; for an account caller (a webhook URL), the name of its rate counter */
  tokenId: string;
  /** 'secret:<sha256 hex>', 'aws:<access key id>' or 'account' */
  proof: string;
  /** false once the request was counted against the rate limits (a long poll's later pulls) */
  count: boolean;
}

/** A plan's limits (src/config/plans.ts declares them). */
export type PlanLimits = Plan;
