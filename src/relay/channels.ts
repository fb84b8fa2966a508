/**
 * A caller's channels: list, view, settings, purge, delete, redrive. Each operation takes
 * the caller's AuthContext (relay/authorize.ts), checks the channel against the token's
 * scope, and answers in the relay's words (relay/channelView.ts).
 */
import { RelayError, invalidField } from '../errors';
import { LIMITS, type ChannelSettingsInput } from '../schemas/requests';
import type { ChannelStats, ConfigureChannel, TagsChange } from '../store/types';
import { HISTORY_SETTING } from '../store/historySetting';
import { checkChannelScope, type AuthContext } from './authorize';
import { channelView, type ChannelView } from './channelView';
import type { RelayDeps } from './deps';

/** A channel in the list: its counts (the channel's own view adds its config, age and expiry). */
export type ChannelListEntry = Omit<
  ChannelStats,
  'config' | 'oldest_message_age_seconds' | 'expiring_within_1h' | 'created_ms'
>;

function listEntry(stats: ChannelStats): ChannelListEntry {
  const {
    config: _config,
    oldest_message_age_seconds: _age,
    expiring_within_1h: _expiring,
    created_ms: _created,
    ...entry
  } = stats;
  return entry;
}

export const channelNotFound = (channel: string) =>
  new RelayError('channel_not_found', `channel ${channel} does not exist`);

/**
 * The named settings a settings change sets: message groups (docs/api/groups.md) and
 * history (docs/api/history.md).
 */
function namedSettings(input: ChannelSettingsInput): Pick<ConfigureChannel, 'named'> {
  const named: Record<string, string | null> = {};
  if (input.group_order !== undefined)
    named.group_order = input.group_order === 'fair' ? 'fair' : null;
  if (input.fifo !== undefined) named.fifo = input.fifo ? '1' : null;
  if (input.history_seconds !== undefined)
    named[HISTORY_SETTING] = input.history_seconds ? String(input.history_seconds) : null;
  return Object.keys(named).length > 0 ? { named } : {};
}

/** What the store takes for a settings change in the relay API's words. */
export function settingsChange(input: ChannelSettingsInput): ConfigureChannel {
  return {
    maxAttempts: input.max_attempts,
    dedupWindowSeconds: input.dedup_window_seconds,
    deadLetterChannel: input.dead_letter_channel,
    paused: input.paused,
    visibilityTimeoutMs: input.visibility_timeout_ms,
    delaySeconds: input.delay_seconds,
    retentionSeconds: input.retention_seconds,
    receiveWaitSeconds: input.receive_wait_seconds,
    ...namedSettings(input),
  };
}

export function createChannels(deps: RelayDeps) {
  const { store } = deps;
  return {
    /** Every channel of the account the token may use, by id. */
    async list(auth: AuthContext): Promise<ChannelStats[]> {
      const all = await store.channels.list(auth.accountId);
      return auth.channels === null ? all : all.filter((c) => auth.channels!.includes(c.id));
    },

    /** The list as the relay API shows it. */
    async listEntries(auth: AuthContext): Promise<ChannelListEntry[]> {
      return (await this.list(auth)).map(listEntry);
    },

    /** The channel's stats and stored config, or null when it does not exist. */
    async stats(auth: AuthContext, channel: string): Promise<ChannelStats | null> {
      checkChannelScope(auth, channel);
      return store.channels.get(auth.accountId, channel);
    },

    async view(auth: AuthContext, channel: string): Promise<ChannelView> {
      const stats = await this.stats(auth, channel);
      if (!stats) throw channelNotFound(channel);
      return channelView(stats, auth.limits);
    },

    /** Changes settings (creating the channel if needed, within the plan's channel limit). */
    async configure(auth: AuthContext, channel: string, change: ConfigureChannel): Promise<void> {
      checkChannelScope(auth, channel);
      if (change.deadLetterChannel === channel) {
        throw invalidField('dead_letter_channel must name another channel than the one configured');
      }
      if (typeof change.deadLetterChannel === 'string')
        checkChannelScope(auth, change.deadLetterChannel);
      const planRetention = auth.limits.retention_seconds;
      if (typeof change.retentionSeconds === 'number' && change.retentionSeconds > planRetention) {
        throw invalidField(
          `retention_seconds must be at most ${planRetention} (the plan's retention)`,
        );
      }
      const history = change.named?.[HISTORY_SETTING];
      const maxHistory = auth.limits.max_history_seconds;
      if (history != null && Number(history) > maxHistory) {
        throw invalidField(
          `history_seconds must be at most ${maxHistory} (the plan's max_history_seconds)`,
        );
      }
      await store.channels.configure(auth.accountId, channel, change);
    },

    async purge(auth: AuthContext, channel: string): Promise<number> {
      checkChannelScope(auth, channel);
      return store.channels.purge(auth.accountId, channel);
    },

    /** Deletes the channel: its messages, settings and routes (docs/api/routes.md). */
    async remove(auth: AuthContext, channel: string): Promise<number> {
      checkChannelScope(auth, channel);
      const removed = await store.channels.remove(auth.accountId, channel);
      // (routes into it stay: a later copy creates it again, as a send would)
      await store.routes.remove(auth.accountId, channel);
      return removed;
    },

    /** Changes (or, with no change, reads) the channel's tags, all or nothing: the tags after. */
    async tags(
      auth: AuthContext,
      channel: string,
      change?: TagsChange,
    ): Promise<Record<string, string>> {
      checkChannelScope(auth, channel);
      return store.channels.tags(auth.accountId, channel, change);
    },

    /** Moves dead-lettered messages back (to: null) or waiting messages on to another channel. */
    async redrive(
      auth: AuthContext,
      channel: string,
      to: string | null,
      max: number = LIMITS.defaultRedrive,
    ): Promise<number> {
      checkChannelScope(auth, channel);
      if (to !== null) {
        checkChannelScope(auth, to);
        if (to === channel)
          throw invalidField('to must name another channel than the one redriven');
      }
      return store.channels.redrive(auth.accountId, channel, to, max);
    },

    /**
     * Makes the channel's dead messages (those its push destination gave up on, kept in the
     * channel: dead_count) available again, oldest first, with fresh attempts.
     */
    async redriveDead(auth: AuthContext, channel: string, max: number): Promise<number> {
      checkChannelScope(auth, channel);
      return store.destinations.redrive(auth.accountId, channel, '', max);
    },
  };
}

export type Channels = ReturnType<typeof createChannels>;
