/** A channel's routes (docs/api/routes.md): read, replace, remove, and test a message against them. */
import { Router, type Request } from 'express';
import { invalidField } from '../errors';
import type { Relay } from '../relay';
import { CONTENT_TYPES } from '../schemas/requests';
import { objectBody } from '../web/body';
import { requestAuth } from '../web/caller';
import { channelParam } from '../web/params';
import { resource } from '../web/route';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The message of a test: a message as the API shows it (body, content_type, metadata; a
 * webhook message's headers and query are in metadata.webhook).
 */
function testMessage(value: Record<string, unknown>) {
  const message = value.message;
  if (message === undefined) throw invalidField('required field message is missing');
  if (!isObject(message)) throw invalidField('message must be a JSON object');
  const contentType = message.content_type ?? 'json';
  if (
    typeof contentType !== 'string' ||
    !(CONTENT_TYPES as readonly string[]).includes(contentType)
  ) {
    throw invalidField(`message.content_type must be one of ${CONTENT_TYPES.join(', ')}`);
  }
  const metadata = message.metadata ?? {};
  if (!isObject(metadata)) throw invalidField('message.metadata must be a JSON object');
  return {
    contentType,
    bodyJson: JSON.stringify(message.body ?? null),
    metadataJson: JSON.stringify(metadata),
  };
}

export function routesRouter(relay: Relay): Router {
  const router = Router();
  const auth = (req: Request) => requestAuth(req, relay);
  const base = '/v1/relay/channels/:channelId/routes';

  resource(router, base, {
    get: async (req) => relay.routes.get(await auth(req), channelParam(req)),
    put: async (req) => {
      const caller = await auth(req);
      return relay.routes.set(caller, channelParam(req), objectBody(req.body));
    },
    delete: async (req) => {
      const caller = await auth(req);
      return { deleted: await relay.routes.remove(caller, channelParam(req)) };
    },
  });

  resource(router, `${base}/test`, {
    post: async (req) => {
      const caller = await auth(req);
      const channel = channelParam(req);
      const message = testMessage(objectBody(req.body));
      return relay.routes.test(caller, channel, message);
    },
  });

  return router;
}
