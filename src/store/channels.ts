/** Channel listing, configuration, purge, delete and redrive. */
import type { StoreContext } from './context';
import { accountKeyList } from './keys';
import {
  channelConfigureScript,
  type ChannelConfigureArgs,
  type ChannelConfigureReply,
  type SettingChange,
} from './scripts/channelConfigure';
import { channelDeleteScript, type ChannelDeleteArgs } from './scripts/channelDelete';
import { channelPurgeScript, type ChannelPurgeArgs } from './scripts/channelPurge';
import {
  channelStatsScript,
  type ChannelStatsArgs,
  type ChannelStatsReply,
} from './scripts/channelStats';
import {
  deadLetterSourcesScript,
  redriveScript,
  type DeadLetterSourcesArgs,
  type DeadLetterSourcesReply,
  type RedriveArgs,
} from './scripts/redrive';
import {
  channelTagsScript,
  type ChannelTagsArgs,
  type ChannelTagsReply,
} from './scripts/channelTags';
import { SCRIPT_ERRORS } from './storeErrors';
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
const settingArg = (value: number | null | undefined, scale = 1): SettingChange =>
  value === undefined ? '' : value === null ? '-' : Math.round(value * scale);

type StatsReply = NonNullable<ChannelStatsReply>;

export function createChannelStore(ctx: StoreContext): ChannelStore {
  const stats = (account: string, channel: string) =>
    ctx.run<ChannelStatsReply, ChannelStatsArgs>(
      channelStatsScript,
      { account, channel },
      { channel },
    );

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
    groups: reply[8] ?? 0,
    blocked_groups: reply[9] ?? 0,
    dead_count: reply[10] ?? 0,
    created_ms: Number(reply[5].split('|')[3]),
    config: parseConfig(reply[5]),
  });

  return {
    async list(account) {
      const ids = (await ctx.command((redis) => redis.hkeys(accountKeyList(account)[1]))).sort();
      const replies = await Promise.all(ids.map((id) => stats(account, id)));
      const out: ChannelStats[] = [];
      replies.forEach((reply, i) => {
        if (reply) out.push(statsOf(ids[i], reply));
      });
      return out;
    },

    async get(account, channel) {
      const reply = await stats(account, channel);
      return reply ? statsOf(channel, reply) : null;
    },

    async configure(account, channel, change) {
      const dlqMode =
        change.deadLetterChannel === undefined
          ? 'keep'
          : change.deadLetterChannel === null
            ? 'clear'
            : 'set';
      const config = await ctx.run<ChannelConfigureReply, ChannelConfigureArgs>(
        channelConfigureScript,
        { account, channel },
        {
          channel,
          max_attempts: change.maxAttempts ?? '',
          dedup_window_seconds: change.dedupWindowSeconds ?? '',
          dlq_mode: dlqMode,
          dead_letter_channel: change.deadLetterChannel ?? '',
          paused: change.paused === undefined ? '' : change.paused ? '1' : '0',
          visibility_timeout_ms: settingArg(change.visibilityTimeoutMs),
          delay_ms: settingArg(change.delaySeconds, 1000),
          retention_ms: settingArg(change.retentionSeconds, 1000),
          receive_wait_ms: settingArg(change.receiveWaitSeconds, 1000),
        },
        Object.entries(change.named ?? {}).map(([name, value]) => `${name}=${value ?? ''}`),
      );
      return parseConfig(config);
    },

    async purge(account, channel) {
      const purged = await ctx.run<number, ChannelPurgeArgs>(
        channelPurgeScript,
        { account, channel },
        { channel },
      );
      // records kept in history set the channel's timer to their end: the due index follows
      const timers = accountKeyList(account)[2];
      const first = await ctx.command((redis) => redis.zrange(timers, 0, 0, 'WITHSCORES'));
      if (first.length === 2) await ctx.lowerDue(account, Number(first[1]));
      return purged;
    },

    async remove(account, channel) {
      return ctx.run<number, ChannelDeleteArgs>(
        channelDeleteScript,
        { account, channel, webhooks: true },
        { channel },
      );
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

    async redrive(account, channel, to, max) {
      const move = (target: string, onlyFromTarget: boolean, limit: number) =>
        ctx.run<number, RedriveArgs>(
          redriveScript,
          { account, channel, target },
          {
            channel,
            target,
            max: limit,
            only_from_target: onlyFromTarget ? '1' : '0',
            scan: REDRIVE_SCAN,
          },
        );
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
        const sources = await ctx.run<DeadLetterSourcesReply, DeadLetterSourcesArgs>(
          deadLetterSourcesScript,
          { account, channel },
          { scan: REDRIVE_SCAN },
        );
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
