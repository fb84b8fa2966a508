/** What the relay operations need, passed in once by buildApp (src/app.ts). */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { PlanResolver } from '../config/planResolver';
import type { AccountLimits } from '../limits/accountLimits';
import type { Metrics } from '../metrics';
import type { EventHub } from '../store/events';
import type { Store } from '../store/types';
import type { ChannelWaiters } from '../store/waiters';

export interface RelayDeps {
  store: Store;
  /** this pod's long-poll waits, woken by the account events */
  waiters: ChannelWaiters;
  /** the account events (new messages, revocations), one subscription per account */
  events: EventHub;
  /** the account limits held at once (long polls, WebSockets) and the operator's rate */
  limits: AccountLimits;
  plans: PlanResolver;
  config: Readonly<Config>;
  /** milliseconds since the epoch, for what the pod decides itself (never queue state) */
  clock: () => number;
  log: Logger;
  metrics: Metrics;
}
