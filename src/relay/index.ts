/**
 * The relay operations every entrance calls (src/http, src/ws, src/webhooks, src/sqs):
 * send, pull (with or without waiting), ack/retry, extend, release, the caller's channels,
 * tokens, accounts and webhooks. It knows nothing of HTTP: an entrance translates its
 * request into these calls and the answer (or the RelayError's code) back into its shape.
 * This is the only way an entrance reaches the store.
 */
import type { AccountListener } from '../store/events';
import type {
  AckResult,
  LeaseOptions,
  NewMessage,
  PullResult,
  Retry,
  SendOptions,
} from '../store/types';
import type { Caller } from '../types';
import { createAccounts } from './accounts';
import { authorize, type AuthContext } from './authorize';
import { createChannels } from './channels';
import { createHistory } from './history';
import { createReplays } from './replays';
import { createDestinations } from './destinations';
import type { RelayDeps } from './deps';
import { pull, type PullRequest } from './pull';
import { createRoutes, type SendResult } from './routes';
import { createTokens } from './tokens';
import { createWebhooks } from './webhooks';

export type { AuthContext } from './authorize';
export { checkChannelScope, checkOwner } from './authorize';
export type { RelayDeps } from './deps';
export type { PullRequest } from './pull';
export {
  parseRoutes,
  chooseChannels,
  MAX_ROUTES,
  type RoutesBody,
  type SendResult,
} from './routes';
export { newMessage, type MessageOptions } from './message';
export { channelView, effectiveConfig, type ChannelView } from './channelView';
export { channelNotFound, settingsChange, type ChannelListEntry } from './channels';
export { publicToken, type IssuedToken, type PublicToken } from './tokens';
export { accountNotFound } from './accounts';
export { unknownWebhook, type FoundWebhook } from './webhooks';
export { ReplayRunner } from './replays';
export type { HistoryDetail, HistorySummary } from './history';
export { destinationNotFound, type Destinations } from './destinations';
export {
  bodyBytes,
  replaySeal,
  withFreshSignature,
  withFreshWebhookSignature,
  type ReplaySigner,
} from './replaySignatures';
export type {
  AttemptOutcome,
  AttemptResult,
  OutcomeSettings,
  DestinationChange,
  DestinationConfig,
  DestinationRecord,
  DestinationState,
  TakenMessage,
  TakeResult,
} from '../store/destinationTypes';
export type {
  AccountRecord,
  AckResult,
  ChannelStats,
  ChannelConfig,
  ConfigureChannel,
  LeaseOptions,
  NewMessage,
  PullOptions,
  PullResult,
  Retry,
  SendOptions,
  SizeCap,
  TagsChange,
  TokenRecord,
  WebhookEntry,
  WebhookRecord,
  WebhookVerify,
  WebhookGroupBy,
} from '../store/types';
export type { AccountEvent, AccountListener } from '../store/events';

export function createRelay(deps: RelayDeps) {
  const { store } = deps;
  const routes = createRoutes(deps);
  const webhooks = createWebhooks(deps, routes);
  return {
    config: deps.config,
    log: deps.log,
    metrics: deps.metrics,
    limits: deps.limits,

    /** Checks the caller (and its scope of channel) and counts its request: one call. */
    authorize: (caller: Caller, channel: string | null = null): Promise<AuthContext> =>
      authorize(deps, caller, channel),

    /**
     * Stores messages in order, one script call that also checks and counts the caller; a
     * channel with routes stores each message's copies instead (relay/routes.ts).
     */
    send: (
      caller: Caller,
      channel: string,
      messages: NewMessage[],
      options?: SendOptions,
    ): Promise<SendResult> => routes.send(caller, channel, messages, options),

    routes,

    /**
     * Leases available messages, waiting for some up to r.waitMs; verified webhook deliveries
     * come with their provider's signature made afresh (replaySignatures.ts).
     */
    pull: async (r: PullRequest): Promise<PullResult> => {
      const result = await pull(deps, r);
      result.messages = await webhooks.resign(r.caller.accountId, result.messages);
      return result;
    },

    /** Acknowledges leases and retries others (after their delay): one script call. */
    ack: (
      caller: Caller,
      channel: string,
      leaseIds: string[],
      retries: Retry[] = [],
      options?: LeaseOptions,
    ): Promise<AckResult> => store.queue.ack(caller, channel, leaseIds, retries, options),

    /** Extends leases (null: the channel's visibility timeout); returns how many. */
    extend: (
      caller: Caller,
      channel: string,
      leaseIds: string[],
      visibilityMs: number | null,
      options?: LeaseOptions,
    ): Promise<number> => store.queue.extend(caller, channel, leaseIds, visibilityMs, options),

    /** Gives back leases whose answer never reached the client: not counted as deliveries. */
    release: (account: string, channel: string, leaseIds: string[]) =>
      store.queue.release(account, channel, leaseIds),

    channels: createChannels(deps),
    tokens: createTokens(deps),
    accounts: createAccounts(deps),
    webhooks,
    /** channel histories: search, show, replay one */
    history: createHistory(deps),
    /** bulk replay jobs */
    replays: createReplays(deps),
    destinations: createDestinations(deps),

    /** Listens to an account's events (new messages, revocations) on this pod. */
    subscribe: (account: string, listener: AccountListener) =>
      deps.events.subscribe(account, listener),

    /** Redis answers and the scripts are loaded. */
    ping: () => store.ping(),
  };
}

export type Relay = ReturnType<typeof createRelay>;
