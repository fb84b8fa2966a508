/** What the routers need, passed in by buildApp. */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Metrics } from '../metrics';
import type { PlanResolver } from '../plans';
import type { Store } from '../store/types';
import type { ChannelWaiters } from '../store/waiters';
import type { RateLimiter } from './rateLimit';

export interface HttpDeps {
  config: Readonly<Config>;
  store: Store;
  plans: PlanResolver;
  logger: Logger;
  metrics: Metrics;
  waiters: ChannelWaiters;
  /** per-token request rate, checked right after authentication */
  rateLimiter: RateLimiter;
  /** true once the app is shutting down: readiness fails */
  isShuttingDown: () => boolean;
}
