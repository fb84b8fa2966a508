/** Builds the store: the only code that knows key names or calls Lua. */
import type { Metrics } from '../metrics';
import { createAccountStore } from './accounts';
import { createChannelStore } from './channels';
import { createDestinationStore } from './destinations';
import { StoreContext, type StoreOptions } from './context';
import { createHistoryStore } from './history';
import { createLimitStore } from './limits';
import { createReplayStore } from './replays';
import { createQueueStore } from './queue';
import { createRouteStore } from './routes';
import type { RedisClient } from './redis';
import { defineScripts } from './scripts';
import { DEFAULT_PLAN_TABLE } from './scripts/plans';
import type { Store } from './types';
import { createWebhookStore } from './webhooks';

export function createStore(
  redis: RedisClient,
  metrics: Metrics,
  options: StoreOptions = {},
): { store: Store; context: StoreContext } {
  const context = new StoreContext(
    redis,
    defineScripts(redis, options.planTable ?? DEFAULT_PLAN_TABLE),
    metrics,
    options,
  );
  const store: Store = {
    queue: createQueueStore(context),
    routes: createRouteStore(context),
    channels: createChannelStore(context),
    accounts: createAccountStore(context),
    limits: createLimitStore(context),
    webhooks: createWebhookStore(context),
    history: createHistoryStore(context),
    replays: createReplayStore(context),
    destinations: createDestinationStore(context),
    async ping() {
      try {
        // a probe even while Redis is held unreachable: its answer ends the outage at once
        return (await context.command((r) => r.ping(), true)) === 'PONG';
      } catch {
        return false;
      }
    },
  };
  return { store, context };
}
