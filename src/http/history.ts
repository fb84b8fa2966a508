/** A channel's message history and replays (docs/api/history.md). */
import { Router, type Request } from 'express';
import type { Relay } from '../relay';
import { objectBody } from '../web/body';
import { requestCaller } from '../web/caller';
import { channelParam } from '../web/params';
import { resource } from '../web/route';

/** The query as strings: a repeated parameter counts as its last value. */
function queryOf(req: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(req.query)) {
    out[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return out;
}

export function historyRouter(relay: Relay): Router {
  const router = Router();
  const base = '/v1/relay/channels/:channelId';

  resource(router, `${base}/history`, {
    get: async (req) => relay.history.list(requestCaller(req), channelParam(req), queryOf(req)),
  });

  resource(router, `${base}/history/:messageId`, {
    get: async (req) =>
      relay.history.show(requestCaller(req), channelParam(req), String(req.params.messageId)),
  });

  resource(router, `${base}/history/:messageId/replay`, {
    post: async (req) => {
      return relay.history.replay(
        requestCaller(req),
        channelParam(req),
        String(req.params.messageId),
        objectBody(req.body),
      );
    },
  });

  resource(router, `${base}/replays`, {
    post: async (req) =>
      relay.replays.create(requestCaller(req), channelParam(req), objectBody(req.body)),
  });

  resource(router, `${base}/replays/:replayId`, {
    get: async (req) =>
      relay.replays.get(requestCaller(req), channelParam(req), String(req.params.replayId)),
    delete: async (req) =>
      relay.replays.cancel(requestCaller(req), channelParam(req), String(req.params.replayId)),
  });

  return router;
}
