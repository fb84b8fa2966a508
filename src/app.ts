/**
 * buildApp(deps): the whole service over one Redis connection, without
 * listening. Two instances over one Redis behave as one service.
 */
import express from 'express';
import type { Logger } from 'pino';
import type { Config } from './config';
import { dashboardHeaders, dashboardRouter } from './dashboard/assets';
import { accountRouter } from './http/account';
import { adminRouter } from './http/admin';
import { rawBody } from './web/body';
import { inFront, type HttpHandler } from './web/endpointTable';
import { channelsRouter } from './http/channels';
import { routesRouter } from './http/routes';
import { historyRouter } from './http/history';
import { errorHandler, unknownRoute } from './web/errorHandler';
import { healthRouter } from './http/health';
import { messageEndpoints } from './http/messages';
import { readCaller } from './web/caller';
import type { TrustProxy } from './web/proxy';
import type { RefusalShape } from './web/refusals';
import { AccountLimits } from './limits/accountLimits';
import { createRelay, ReplayRunner, type Relay, type RelayDeps } from './relay';
import { requestLog } from './web/requestLog';
import { sessionRouter } from './http/session';
import { whoamiRouter } from './http/whoami';
import { registerBacklogMetrics } from './backlogMetrics';
import { Metrics } from './metrics';
import { openapiRouter } from './openapi/route';
import { sqsRefusalShape } from './sqs/refusal';
import { SQS_PATH, sqsRouter } from './sqs/router';
import { PlanResolver } from './config/planResolver';
import { EventHub } from './store/events';
import { BacklogGauges } from './store/gauges';
import { createStore } from './store/index';
import { duplicateForSubscriber, connectRedis, type RedisClient } from './store/redis';
import { loadScripts } from './store/scripts';
import type { StoreContext } from './store/context';
import { DueRepair } from './store/dueRepair';
import { Sweeper } from './store/sweeper';
import type { Store } from './store/types';
import { ChannelWaiters } from './store/waiters';
import { Deliveries, type DeliveryOptions } from './destinations/deliveries';
import { destinationsRouter } from './destinations/router';
import { webhookReceiver } from './webhooks/receiver';
import { webhooksRouter } from './webhooks/router';

export interface AppDeps {
  config: Readonly<Config>;
  redis: RedisClient;
  logger: Logger;
  metrics?: Metrics;
  /** the push deliveries' timings (tests shorten them); false: this app delivers nothing */
  deliveries?: Partial<DeliveryOptions> | false;
}

export interface RelayApp {
  /** the HTTP handler: the message endpoints and the webhook receiver in front of the Express app */
  app: HttpHandler;
  store: Store;
  events: EventHub;
  plans: PlanResolver;
  metrics: Metrics;
  sweeper: Sweeper;
  gauges: BacklogGauges;
  dueRepair: DueRepair;
  /** runs bulk replay jobs on this pod (tests kill it to stand for a pod's death) */
  replayRunner: ReplayRunner;
  /** the store's shared parts: coalesced fan-out, due index (tests use its fault hook) */
  context: StoreContext;
  /** the operations every entrance calls */
  relay: Relay;
  deps: RelayDeps;
  /** this pod's push deliveries (src/destinations), null when turned off */
  deliveries: Deliveries | null;
  /** which hops' X-Forwarded-* to believe (RELAY_TRUST_PROXY) */
  trustProxy: TrustProxy;
  /** entrances that answer the server's own refusals in their shape */
  refusalShapes: readonly RefusalShape[];
  isShuttingDown(): boolean;
  /** Loads the scripts, connects the subscriber, starts the sweeper. */
  start(): Promise<void>;
  /** Marks the app as shutting down (readiness fails). */
  beginShutdown(): void;
  /** Stops the sweeper and closes the subscriber connection (not the main one). */
  close(): Promise<void>;
}

export function buildApp({
  config,
  redis,
  logger,
  metrics = new Metrics(),
  deliveries: deliveryOptions = {},
}: AppDeps): RelayApp {
  const planTable = { plans: config.plans, defaultPlan: config.defaultPlan };
  if (config.authCacheMs) {
    logger.warn(
      { authCacheMs: config.authCacheMs },
      'RELAY_AUTH_CACHE_MS is ignored: every request checks its token in its one Redis call',
    );
  }
  const { store, context } = createStore(redis, metrics, {
    planTable,
    fanoutWindowMs: config.fanoutWindowMs ?? 50,
    duePartitions: config.sweepPartitions ?? 16,
    durability: {
      mode: config.durability ?? 'local',
      replicas: config.durabilityReplicas ?? 1,
      timeoutMs: config.durabilityTimeoutMs ?? 1000,
    },
    logger,
  });
  const plans = new PlanResolver(config.plans, config.defaultPlan);
  const subscriber = duplicateForSubscriber(redis);
  // Every connection reports its errors in the JSON log (an 'error' event without a
  // listener would be printed by ioredis outside it). The main one may have its own.
  if (redis.listenerCount('error') === 0) {
    redis.on('error', (err) => logger.warn({ err: String(err) }, 'redis connection error'));
  }
  subscriber.on('error', (err) =>
    logger.warn({ err: String(err) }, 'redis subscriber connection error'),
  );
  const events = new EventHub(subscriber, logger);
  const waiters = new ChannelWaiters(events);
  // Waiting long polls answer (with the 503) once Redis is found unreachable, not at their deadline.
  context.onUnreachable(() => waiters.wakeAll());
  redis.on('close', () => waiters.wakeAll());
  const sweeper = new Sweeper(context, logger, config.sweepIntervalMs);
  const gauges = new BacklogGauges(context, logger, config.gaugeIntervalMs);
  registerBacklogMetrics(metrics.registry, {
    gauges,
    channels: store.channels,
    redis,
    metricsAccounts: config.metricsAccounts,
    plans: config.plans,
  });
  const dueRepair = new DueRepair(context, sweeper, logger, config.dueRepairPassMs ?? 30_000);
  let shuttingDown = false;

  const deps: RelayDeps = {
    config,
    store,
    plans,
    log: logger,
    metrics,
    waiters,
    events,
    clock: Date.now,
    limits: new AccountLimits(store.limits, logger, config.adminRateLimitPerSecond ?? 0),
  };
  const relay = createRelay(deps);
  const replayRunner = new ReplayRunner(deps, config.replayTickMs ?? 200);
  // the history records gauge: a walk over the history indexes, every so often on
  // each pod rather than on every scrape (a scrape's cost stays constant)
  const countHistory = () =>
    store.history
      .countAll()
      .then((n) => metrics.historyRecords.set(n))
      .catch((err: unknown) => logger.warn({ err: String(err) }, 'history records not counted'));
  void countHistory();
  const historyCounter = setInterval(countHistory, config.historyCountIntervalMs ?? 15_000);
  historyCounter.unref();
  const deliveries =
    deliveryOptions === false
      ? null
      : new Deliveries(relay, logger, {
          allowPrivate: config.destinationsAllowPrivate ?? config.embeddedRedis,
          ...deliveryOptions,
        });
  const isShuttingDown = () => shuttingDown;

  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-* believed only from the proxies RELAY_TRUST_PROXY names (cookie Secure,
  // the Origin check, logged addresses: req.secure, req.protocol, req.ip)
  app.set('trust proxy', config.trustProxy ?? false);
  app.disable('etag');
  app.set('query parser', 'simple');
  const log = requestLog(logger, metrics);
  app.use(log);
  // the SQS endpoint next, behind the same kind of gate (its paths: /sqs... and /)
  const sqsEndpoint = sqsRouter(relay);
  app.use((req, res, next) => (SQS_PATH.test(req.path) ? sqsEndpoint(req, res, next) : next()));
  app.use(healthRouter(relay, isShuttingDown));
  app.use(openapiRouter(config));
  app.use(rawBody);
  // the caller's credential (bearer token, or the dashboard session's cookie), read once
  app.use('/v1', readCaller);
  app.use(channelsRouter(relay));
  app.use(routesRouter(relay));
  app.use(historyRouter(relay));
  app.use(webhooksRouter(relay));
  app.use(destinationsRouter(relay, deliveries));
  app.use(whoamiRouter(relay));
  app.use(accountRouter(relay));
  app.use('/dashboard', dashboardHeaders);
  app.use(sessionRouter(relay));
  app.use(dashboardRouter());
  if (config.adminToken) app.use(adminRouter(relay, config.adminToken));
  app.use(unknownRoute);
  const answerError = errorHandler(logger);
  app.use(answerError);
  // The busiest routes in front of the app, without a router (they pass no router's
  // layers): a message request is logged, its body read and its caller found, then its
  // handler runs; a webhook delivery is logged, then received (its body read as exact
  // bytes, up to the plan's limit). Any other request goes to the app.
  const handler = inFront(
    app,
    [
      { table: messageEndpoints(relay), prepare: [log, rawBody, readCaller] },
      { table: webhookReceiver(relay), prepare: [log] },
    ],
    answerError,
  );

  return {
    app: handler,
    store,
    events,
    plans,
    metrics,
    sweeper,
    gauges,
    dueRepair,
    replayRunner,
    context,
    relay,
    deps,
    deliveries,
    trustProxy: app.get('trust proxy fn') as TrustProxy,
    refusalShapes: [sqsRefusalShape],
    isShuttingDown,
    async start() {
      await connectRedis(redis);
      await loadScripts(redis, planTable);
      await connectRedis(subscriber);
      sweeper.start();
      gauges.start();
      dueRepair.start();
      replayRunner.start();
      deliveries?.start();
    },
    beginShutdown() {
      shuttingDown = true;
      waiters.releaseAll();
    },
    async close() {
      shuttingDown = true;
      waiters.releaseAll();
      await deliveries?.stop();
      await dueRepair.stop();
      await replayRunner.stop();
      clearInterval(historyCounter);
      await sweeper.stop();
      await gauges.stop();
      deps.limits.stop();
      context.fanout.stop();
      subscriber.disconnect();
    },
  };
}
