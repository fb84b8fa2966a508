/**
 * Push destinations of a channel (src/destinations): the management operations, checked
 * against the caller's scope of channel, and the two a delivery is made of (take the
 * messages flow control allows, then record each attempt's outcome), which any pod runs.
 */
import { RelayError } from '../errors';
import type {
  AttemptOutcome,
  OutcomeSettings,
  DestinationChange,
  DestinationRecord,
} from '../store/destinationTypes';
import { checkChannelScope, type AuthContext } from './authorize';
import type { RelayDeps } from './deps';

export const destinationNotFound = (channel: string, id: string) =>
  new RelayError('destination_not_found', `destination ${id} does not exist on channel ${channel}`);

export function createDestinations(deps: RelayDeps) {
  const { store } = deps;
  const found = async (auth: AuthContext, channel: string, id: string) => {
    checkChannelScope(auth, channel);
    const record = await store.destinations.get(auth.accountId, channel);
    if (!record || record.id !== id) throw destinationNotFound(channel, id);
    return record;
  };

  return {
    async create(auth: AuthContext, channel: string, id: string, change: DestinationChange) {
      checkChannelScope(auth, channel);
      return store.destinations.save(auth.accountId, channel, id, 'create', change);
    },

    async list(auth: AuthContext, channel: string): Promise<DestinationRecord[]> {
      checkChannelScope(auth, channel);
      const record = await store.destinations.get(auth.accountId, channel);
      return record ? [record] : [];
    },

    get: found,

    async update(auth: AuthContext, channel: string, id: string, change: DestinationChange) {
      await found(auth, channel, id);
      await store.destinations.save(auth.accountId, channel, id, 'update', change);
      return found(auth, channel, id);
    },

    async remove(auth: AuthContext, channel: string, id: string): Promise<void> {
      checkChannelScope(auth, channel);
      await store.destinations.remove(auth.accountId, channel, id);
    },

    async redrive(auth: AuthContext, channel: string, id: string, max: number) {
      checkChannelScope(auth, channel);
      return store.destinations.redrive(auth.accountId, channel, id, max);
    },

    async attempts(auth: AuthContext, channel: string, id: string, offset: number, limit: number) {
      await found(auth, channel, id);
      return store.destinations.attempts(auth.accountId, channel, offset, limit);
    },

    /** For the deliveries (no caller: the pod acts for the destination's owner). */
    read: (account: string, channel: string) => store.destinations.get(account, channel),
    take: (account: string, channel: string, id: string, max: number) =>
      store.destinations.take(account, channel, id, max),
    settle: (
      account: string,
      channel: string,
      id: string,
      outcomes: readonly AttemptOutcome[],
      settings: OutcomeSettings,
      takeMax: number,
    ) => store.destinations.settle(account, channel, id, outcomes, settings, takeMax),
    all: () => store.destinations.all(),
    removeGone: (account: string, channel: string, id: string) =>
      store.destinations.remove(account, channel, id),
  };
}

export type Destinations = ReturnType<typeof createDestinations>;
