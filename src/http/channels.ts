/** Channel listing and management (docs/api/channels.md). */
import { Router, type Request } from 'express';
import { settingsChange, type Relay } from '../relay';
import { validateChannelConfig, validateDeadRedrive } from '../schemas/requests';
import { objectBody } from '../web/body';
import { resource } from '../web/route';
import { requestAuth } from '../web/caller';
import { channelParam } from '../web/params';

export function channelsRouter(relay: Relay): Router {
  const router = Router();
  const auth = (req: Request) => requestAuth(req, relay);

  resource(router, '/v1/relay/channels', {
    get: async (req) => ({ channels: await relay.channels.listEntries(await auth(req)) }),
  });

  resource(router, '/v1/relay/channels/:channelId', {
    get: async (req) => {
      const caller = await auth(req);
      return relay.channels.view(caller, channelParam(req));
    },
    put: async (req) => {
      const caller = await auth(req);
      const channel = channelParam(req);
      const input = validateChannelConfig(objectBody(req.body));
      await relay.channels.configure(caller, channel, settingsChange(input));
      return relay.channels.view(caller, channel);
    },
    delete: async (req) => {
      const caller = await auth(req);
      return { deleted_count: await relay.channels.remove(caller, channelParam(req)) };
    },
  });

  resource(router, '/v1/relay/channels/:channelId/redrive', {
    post: async (req) => {
      const caller = await auth(req);
      const input = validateDeadRedrive(objectBody(req.body));
      const moved = await relay.channels.redriveDead(caller, channelParam(req), input.max ?? 1000);
      return { moved_count: moved };
    },
  });

  return router;
}
