/** What an SQS action handler receives: the request, translated, and the relay to call. */
import type { AuthContext, Relay } from '../relay';
import type { Caller } from '../types';
import type { Input } from './params';

export interface SqsCall {
  relay: Relay;
  /** the account the signing key belongs to */
  accountId: string;
  /**
   * The caller as the scripts check it (proved by the signature). The first call of the
   * request counts it against the rate limits; every later one gets it uncounted.
   */
  caller(): Caller;
  /**
   * The full caller (token scope, plan limits) for actions that are not one script call:
   * one authorize call, made once per request (and counting it, if nothing did yet).
   */
  auth(): Promise<AuthContext>;
  /** the region of the request's credential scope (used in ARNs) */
  region: string;
  /** the origin queue URLs are built on (worked out when first read) */
  readonly baseUrl: string;
  input: Input;
  /** aborted when the client has gone (ends a long poll); made when first read */
  readonly signal: AbortSignal;
}

export type SqsAction = (call: SqsCall) => Promise<Record<string, unknown>>;

/** An SqsCall for a request whose signature proved `caller`. */
export function sqsCall(
  relay: Relay,
  caller: Caller,
  request: Pick<SqsCall, 'region' | 'input'> & {
    baseUrl: () => string;
    signal: () => AbortSignal;
  },
): SqsCall {
  let counted = false;
  let baseUrl: string | undefined;
  let signal: AbortSignal | undefined;
  let auth: Promise<AuthContext> | null = null;
  const next = (): Caller => {
    const c = counted ? { ...caller, count: false } : caller;
    counted = true;
    return c;
  };
  return {
    relay,
    accountId: caller.accountId,
    caller: next,
    auth: () => (auth ??= relay.authorize(next())),
    region: request.region,
    input: request.input,
    // only the actions that hand out queue URLs need it
    get baseUrl() {
      return (baseUrl ??= request.baseUrl());
    },
    // only a pull needs it: no listeners on the answer for the rest
    get signal() {
      return (signal ??= request.signal());
    },
  };
}
