/** Channel listing and management (docs/api/channels.md). */
import { Router, type Request } from 'express';
import { checkChannelScope } from '../auth/authenticate';
import { requestAuth } from './caller';
import { badRequest, notFound } from '../errors';
import { validateChannelConfig } from '../schemas/requests';
import type { ChannelStats } from '../store/types';
import { objectBody } from './body';
import { channelView } from './channelView';
import type { HttpDeps } from './context';
import { channelParam } from './messages';
import { resource } from './route';

/** A channel in the list: its counts (GET of the channel adds its config, age and expiry). */
function listEntry(
  stats: ChannelStats,
): Omit<
  ChannelStats,
  'config' | 'oldest_message_age_seconds' | 'expiring_within_1h' | 'created_ms'
> {
  const {
    config: _config,
    oldest_message_age_seconds: _age,
    expiring_within_1h: _expiring,
    created_ms: _created,
    ...entry
  } = stats;
  return entry;
}

export function channelsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store } = deps;
  const auth = (req: Request) => requestAuth(req, deps);

  resource(router, '/v1/relay/channels', {
    get: async (req) => {
      const caller = await auth(req);
      const all = await store.channels.list(caller.accountId);
      const visible =
        caller.channels === null ? all : all.filter((c) => caller.channels!.includes(c.id));
      return { channels: visible.map(listEntry) };
    },
  });

  resource(router, '/v1/relay/channels/:channelId', {
    get: async (req) => {
      const caller = await auth(req);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      const stats = await store.channels.get(caller.accountId, channel);
      if (!stats) throw notFound(`channel ${channel} does not exist`);
      return channelView(stats, caller.limits);
    },
    put: async (req) => {
      const caller = await auth(req);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      const input = validateChannelConfig(objectBody(req.body));
      if (input.dead_letter_channel === channel) {
        throw badRequest('dead_letter_channel must name another channel than the one configured');
      }
      if (typeof input.dead_letter_channel === 'string')
        checkChannelScope(caller, input.dead_letter_channel);
      const planRetention = caller.limits.retention_seconds;
      if (typeof input.retention_seconds === 'number' && input.retention_seconds > planRetention) {
        throw badRequest(
          `retention_seconds must be at most ${planRetention} (the plan's retention)`,
        );
      }
      await store.channels.configure(caller.accountId, channel, caller.limits, {
        maxAttempts: input.max_attempts,
        dedupWindowSeconds: input.dedup_window_seconds,
        deadLetterChannel: input.dead_letter_channel,
        paused: input.paused,
        visibilityTimeoutMs: input.visibility_timeout_ms,
        delaySeconds: input.delay_seconds,
        retentionSeconds: input.retention_seconds,
        receiveWaitSeconds: input.receive_wait_seconds,
      });
      const stats = (await store.channels.get(caller.accountId, channel)) as ChannelStats;
      return channelView(stats, caller.limits);
    },
    delete: async (req) => {
      const caller = await auth(req);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      return { deleted_count: await store.channels.remove(caller.accountId, channel) };
    },
  });

  return router;
}
