/** What an SQS action handler receives. */
import type { AuthContext } from '../auth/authenticate';
import type { Caller } from '../store/scripts/define';
import type { HttpDeps } from '../http/context';
import type { Input } from './params';

export interface SqsCall {
  deps: HttpDeps;
  auth: AuthContext;
  /** the caller as the queue scripts check it (proved by the signature; counted already) */
  caller: Caller;
  /** the region of the request's credential scope (used in ARNs) */
  region: string;
  /** the origin queue URLs are built on */
  baseUrl: string;
  input: Input;
  /** aborted when the client has gone (ends a long poll) */
  signal: AbortSignal;
}

export type SqsAction = (call: SqsCall) => Promise<Record<string, unknown>>;
