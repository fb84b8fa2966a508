/** What the routers need, passed in by buildApp. */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Metrics } from '../metrics';
import type { PlanResolver } from '../config/planResolver';
import type { Store } from '../store/types';
import type { ChannelWaiters } from '../store/waiters';
import type { AccountLimits } from '../limits/accountLimits';

export interface HttpDeps {
  config: Readonly<Config>;
  store: Store;
  plans: PlanResolver;
  logger: Logger;
  metrics: Metrics;
  waiters: ChannelWaiters;
  /** the account limits (rate, concurrent WebSockets and long polls), counted in one place */
  limits: AccountLimits;
  /** true once the app is shutting down: readiness fails */
  isShuttingDown: () => boolean;
}
