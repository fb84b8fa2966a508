/** Channel listing, configuration, purge, delete and redrive. */
import type { StoreContext } from './context';
import { accountKeyList, channelKeyList, historyKeyList, tagsKey, webhooksKey } from './keys';
import {
  channelTagsScript,
  type ChannelTagsArgs,
  type ChannelTagsReply,
} from './scripts/channelTags';
import { SCRIPT_ERRORS, scriptError } from './storeErrors';
import type { ChannelConfig, ChannelStats, ChannelStore } from './types';

const REDRIVE_SCAN = 10_000;

/** A stored number setting: '' (or absent, on a channel never given settings) is not set. */
const setting = (raw: string | undefined, scale = 1): number | null =>
  raw === undefined || raw === '' ? null : Number(raw) / scale;

/** Reads the config string (layout in lua/lib/common.lua). */
function parseConfig(config: string): ChannelConfig {
  const [
    maxAttempts,
    dedupWindow,
    dlq,
    ,
    paused,
    visibility,
    delay,
    retention,
    receiveWait,
    ...rest
  ] = config.split('|');
  const named: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const item of rest) {
    const at = item.indexOf('=');
    if (at > 0) named[item.slice(0, at)] = item.slice(at + 1);
  }
  return {
    dead_letter_channel: dlq === '' ? null : dlq,
    max_attempts: Number(maxAttempts),
    dedup_window_seconds: Number(dedupWindow),
    paused: paused === '1',
    visibility_timeout_ms: setting(visibility),
    delay_seconds: setting(delay, 1000),
    retention_seconds: setting(retention, 1000),
    receive_wait_seconds: setting(receiveWait, 1000),
    named,
  };
}

/** A setting change as channel_configure takes it: '' keeps, '-' resets, else the value. */
const settingArg = (value: number | null | undefined, scale = 1): string | number =>
  value === undefined ? '' : value === null ? '-' : Math.round(value * scale);

type StatsReply = [number, number, number, number, number | null, string, number, number];

/** A channel script's error as the client is told it (the one table, SCRIPT_ERRORS). */
function mapChannelErrors(err: unknown, account: string, channel: string): unknown {
  return scriptError(err, { account, channel });
}

export function createChannelStore(ctx: StoreContext): ChannelStore {
  const keysOf = (account: string, channel: string) => [
    ...accountKeyList(account),
    ...channelKeyList(account, channel),
  ];

  /** the channel's keys and its history keys (the scripts that may end its messages) */
  const withHistory = (account: string, channel: string) => [
    ...keysOf(account, channel),
    ...historyKeyList(account, channel),
  ];

  const statsOf = (id: string, reply: StatsReply): ChannelStats => ({
    id,
    queued: reply[0],
    delayed: reply[1],
    in_flight: reply[2],
    storage_bytes: Math.max(0, reply[3]),
    oldest_message_ms: reply[4] ?? null,
    oldest_message_age_seconds:
      reply[4] === null || reply[4] === undefined ? null : Math.max(0, reply[7] - reply[4]) / 1000,
    expiring_within_1h: reply[6],
    created_ms: Number(reply[5].split('|')[3]),
    config: parseConfig(reply[5]),
  });

  return {
    async list(account) {
      const ids = (await ctx.redis.hkeys(accountKeyList(account)[1])).sort();
      const stats = await Promise.all(
        ids.map((id) => ctx.call<StatsReply | null>('channel_stats', keysOf(account, id), [id])),
      );
      const out: ChannelStats[] = [];
      stats.forEach((reply, i) => {
        if (reply) out.push(statsOf(ids[i], reply));
      });
      return out;
    },

    async get(account, channel) {
      const reply = await ctx.call<StatsReply | null>('channel_stats', keysOf(account, channel), [
        channel,
      ]);
      return reply ? statsOf(channel, reply) : null;
    },

    async configure(account, channel, limits, change) {
      const dlqMode =
        change.deadLetterChannel === undefined
          ? 'keep'
          : change.deadLetterChannel === null
            ? 'clear'
            : 'set';
      try {
        const config = await ctx.call<string>('channel_configure', withHistory(account, channel), [
          channel,
          limits.max_channels,
          change.maxAttempts ?? '',
          change.dedupWindowSeconds ?? '',
          dlqMode,
          change.deadLetterChannel ?? '',
          change.paused === undefined ? '' : change.paused ? '1' : '0',
          settingArg(change.visibilityTimeoutMs),
          settingArg(change.delaySeconds, 1000),
          settingArg(change.retentionSeconds, 1000),
          settingArg(change.receiveWaitSeconds, 1000),
          ...Object.entries(change.named ?? {}).map(([name, value]) => `${name}=${value ?? ''}`),
        ]);
        return parseConfig(config);
      } catch (err) {
        throw mapChannelErrors(err, account, channel);
      }
    },

    async purge(account, channel) {
      try {
        const purged = await ctx.call<number>('channel_purge', withHistory(account, channel), [
          channel,
        ]);
        // records kept in history set the channel's timer to their end: the due index follows
        const first = await ctx.redis.zrange(accountKeyList(account)[2], 0, 0, 'WITHSCORES');
        if (first.length === 2) await ctx.lowerDue(account, Number(first[1]));
        return purged;
      } catch (err) {
        throw mapChannelErrors(err, account, channel);
      }
    },

    async remove(account, channel) {
      try {
        return await ctx.call<number>(
          'channel_delete',
          [
            ...keysOf(account, channel),
            webhooksKey(account),
            tagsKey(account, channel),
            ...historyKeyList(account, channel),
          ],
          [channel],
        );
      } catch (err) {
        throw mapChannelErrors(err, account, channel);
      }
    },

    async tags(account, channel, change = {}) {
      const remove = change.remove ?? [];
      const set = Object.entries(change.set ?? {}).flat();
      const reply = await ctx.run<ChannelTagsReply, ChannelTagsArgs>(
        channelTagsScript,
        { account, channel },
        { channel, max_tags: change.maxTags ?? 0, remove_count: remove.length },
        [...remove, ...set],
      );
      const tags: Record<string, string> = Object.create(null) as Record<string, string>;
      for (let i = 0; i < reply.length; i += 2) tags[reply[i]] = reply[i + 1];
      return tags;
    },

    async redrive(account, channel, limits, to, max) {
      const move = async (target: string, onlyFromTarget: boolean, limit: number) => {
        try {
          return await ctx.call<number>(
            'redrive',
            [...keysOf(account, channel), ...channelKeyList(account, target)],
            [channel, target, limit, onlyFromTarget ? '1' : '0', limits.max_channels, REDRIVE_SCAN],
          );
        } catch (err) {
          throw mapChannelErrors(err, account, channel);
        }
      };
      if (to !== null) {
        // One call looks at REDRIVE_SCAN waiting messages at most; a larger max takes more calls.
        let moved = 0;
        while (moved < max) {
          const n = await move(to, false, max - moved);
          if (n === 0) break;
          moved += n;
        }
        return moved;
      }
      if (!(await this.get(account, channel)))
        throw SCRIPT_ERRORS.CHANNEL_NOT_FOUND([], { account, channel });
      let moved = 0;
      while (moved < max) {
        const sources = await ctx.call<string[]>('dead_letter_sources', keysOf(account, channel), [
          REDRIVE_SCAN,
        ]);
        const targets = sources.filter((s) => s !== channel);
        if (targets.length === 0) break;
        let progress = 0;
        for (const target of targets) {
          if (moved >= max) break;
          const n = await move(target, true, max - moved);
          moved += n;
          progress += n;
        }
        if (progress === 0) break;
      }
      return moved;
    },
  };
}
