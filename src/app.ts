/**
 * buildApp(deps): the whole service over one Redis connection, without
 * listening. Two instances over one Redis behave as one service.
 */
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config';
import { sessionAuthorization } from './auth/sessions';
import { dashboardRouter } from './dashboard/assets';
import { accountRouter } from './http/account';
import { adminRouter } from './http/admin';
import { rawBody } from './http/body';
import { channelsRouter } from './http/channels';
import type { HttpDeps } from './http/context';
import { errorHandler, unknownRoute } from './http/errorHandler';
import { healthRouter } from './http/health';
import { messagesRouter } from './http/messages';
import { RateLimiter } from './http/rateLimit';
import { requestLog } from './http/requestLog';
import { sessionRouter } from './http/session';
import { whoamiRouter } from './http/whoami';
import { Metrics } from './metrics';
import { openapiRouter } from './openapi/route';
import { PlanResolver } from './plans';
import { EventHub } from './store/events';
import { createStore } from './store/index';
import { createRateWindows } from './store/rateLimits';
import { duplicateForSubscriber, connectRedis, type RedisClient } from './store/redis';
import { loadScripts } from './store/scripts';
import { Sweeper } from './store/sweeper';
import type { Store } from './store/types';
import { ChannelWaiters } from './store/waiters';

export interface AppDeps {
  config: Readonly<Config>;
  redis: RedisClient;
  logger: Logger;
  metrics?: Metrics;
}

export interface RelayApp {
  app: Express;
  store: Store;
  events: EventHub;
  plans: PlanResolver;
  metrics: Metrics;
  sweeper: Sweeper;
  deps: HttpDeps;
  /** Loads the scripts, connects the subscriber, starts the sweeper. */
  start(): Promise<void>;
  /** Marks the app as shutting down (readiness fails). */
  beginShutdown(): void;
  /** Stops the sweeper and closes the subscriber connection (not the main one). */
  close(): Promise<void>;
}

export function buildApp({ config, redis, logger, metrics = new Metrics() }: AppDeps): RelayApp {
  const { store, context } = createStore(redis, metrics, config.authCacheMs ?? 0);
  const plans = new PlanResolver(config.plans, config.defaultPlan);
  const subscriber = duplicateForSubscriber(redis);
  const events = new EventHub(subscriber, logger);
  const waiters = new ChannelWaiters(events);
  const sweeper = new Sweeper(context, plans, logger, config.sweepIntervalMs);
  let shuttingDown = false;

  const deps: HttpDeps = {
    config,
    store,
    plans,
    logger,
    metrics,
    waiters,
    rateLimiter: new RateLimiter(
      config.rateLimitPerSecond,
      config.rateLimitBurst,
      createRateWindows(context),
    ),
    isShuttingDown: () => shuttingDown,
  };

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(requestLog(logger, metrics));
  app.use(healthRouter(deps));
  app.use(openapiRouter());
  app.use(rawBody);
  // a dashboard session's cookie stands in for the Authorization header on the API
  app.use('/v1', (req, _res, next) => {
    const authorization = sessionAuthorization(req);
    if (authorization !== undefined) req.headers.authorization = authorization;
    next();
  });
  app.use(messagesRouter(deps));
  app.use(channelsRouter(deps));
  app.use(whoamiRouter(deps));
  app.use(accountRouter(deps));
  app.use(sessionRouter(deps));
  app.use(dashboardRouter());
  if (config.adminToken) app.use(adminRouter(deps, config.adminToken));
  app.use(unknownRoute);
  app.use(errorHandler(logger));

  return {
    app,
    store,
    events,
    plans,
    metrics,
    sweeper,
    deps,
    async start() {
      await connectRedis(redis);
      await loadScripts(redis);
      await connectRedis(subscriber);
      sweeper.start();
    },
    beginShutdown() {
      shuttingDown = true;
      waiters.releaseAll();
    },
    async close() {
      shuttingDown = true;
      waiters.releaseAll();
      await sweeper.stop();
      subscriber.disconnect();
    },
  };
}
