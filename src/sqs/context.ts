/** What an SQS action handler receives. */
import type { AuthContext } from '../auth/authenticate';
import type { HttpDeps } from '../http/context';
import type { Input } from './params';

export interface SqsCall {
  deps: HttpDeps;
  auth: AuthContext;
  /** the region of the request's credential scope (used in ARNs) */
  region: string;
  /** the origin queue URLs are built on */
  baseUrl: string;
  input: Input;
  /** aborted when the client has gone (ends a long poll) */
  signal: AbortSignal;
  /** looks the caller's token up again: a long poll re-checks it before leasing */
  recheck(): Promise<void>;
}

export type SqsAction = (call: SqsCall) => Promise<Record<string, unknown>>;
