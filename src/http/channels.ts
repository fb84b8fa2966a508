/** Channel listing and management: extensions of the spec. */
import { Router } from 'express';
import { authenticate, checkChannelScope } from '../auth/authenticate';
import { badRequest, notFound } from '../errors';
import { validateChannelConfig } from '../schemas/requests';
import type { ChannelStats } from '../store/types';
import { objectBody } from './body';
import type { HttpDeps } from './context';
import { channelParam } from './messages';
import { resource } from './route';

function listEntry(stats: ChannelStats): Omit<ChannelStats, 'config'> {
  const { config: _config, ...entry } = stats;
  return entry;
}

export function channelsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store, plans } = deps;
  const auth = async (header: string | undefined) => {
    const caller = await authenticate(header, store.accounts, plans);
    await deps.limits.enforce(caller);
    return caller;
  };

  resource(router, '/v1/relay/channels', {
    get: async (req) => {
      const caller = await auth(req.headers.authorization);
      const all = await store.channels.list(caller.accountId);
      const visible =
        caller.channels === null ? all : all.filter((c) => caller.channels!.includes(c.id));
      return { channels: visible.map(listEntry) };
    },
  });

  resource(router, '/v1/relay/channels/:channelId', {
    get: async (req) => {
      const caller = await auth(req.headers.authorization);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      const stats = await store.channels.get(caller.accountId, channel);
      if (!stats) throw notFound(`channel ${channel} does not exist`);
      return stats;
    },
    put: async (req) => {
      const caller = await auth(req.headers.authorization);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      const input = validateChannelConfig(objectBody(req.body));
      if (input.dead_letter_channel === channel) {
        throw badRequest('dead_letter_channel must name another channel than the one configured');
      }
      if (typeof input.dead_letter_channel === 'string')
        checkChannelScope(caller, input.dead_letter_channel);
      await store.channels.configure(caller.accountId, channel, caller.limits, {
        maxAttempts: input.max_attempts,
        dedupWindowSeconds: input.dedup_window_seconds,
        deadLetterChannel: input.dead_letter_channel,
      });
      return (await store.channels.get(caller.accountId, channel)) as ChannelStats;
    },
    delete: async (req) => {
      const caller = await auth(req.headers.authorization);
      const channel = channelParam(req);
      checkChannelScope(caller, channel);
      return { deleted_count: await store.channels.remove(caller.accountId, channel) };
    },
  });

  return router;
}
