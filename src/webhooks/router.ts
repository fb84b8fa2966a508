/**
 * Webhook endpoints of a channel: create (the URL is shown once), list,
 * delete. Callers are tokens allowed to use the channel and owner sessions,
 * as for the channel's other management endpoints.
 */
import { Router, type Request } from 'express';
import { checkChannelScope } from '../auth/authenticate';
import { requestAuth } from '../http/caller';
import { hashSecret } from '../auth/tokens';
import { badRequest } from '../errors';
import { objectBody } from '../http/body';
import type { HttpDeps } from '../http/context';
import { publicBaseUrl } from '../http/publicUrl';
import { channelParam } from '../http/messages';
import { resource } from '../http/route';
import type { WebhookEntry, WebhookRecord } from '../store/types';
import { formatHookKey, newHookKey } from './hookKey';
import { validateCreateWebhook } from './schema';
import { sealSecret } from './secrets';

/** What may be shown of the verification settings: never the secret. */
function publicVerify(record: WebhookRecord) {
  if (!record.verify) return null;
  const { secret: _secret, ...shown } = record.verify;
  return shown;
}

function listEntry(entry: WebhookEntry) {
  return {
    id: entry.id,
    label: entry.label,
    verify: publicVerify(entry),
    dedup_header: entry.dedup_header,
    created_at: entry.created_ms,
    last_received_at: entry.last_received_ms,
    received_count: entry.received_count,
  };
}

export function webhooksRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store } = deps;

  async function channelCaller(req: Request) {
    const caller = await requestAuth(req, deps);
    const channel = channelParam(req);
    checkChannelScope(caller, channel);
    return { caller, channel };
  }

  const base = '/v1/relay/channels/:channelId/webhooks';

  resource(router, base, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const settings = validateCreateWebhook(objectBody(req.body));
      const key = newHookKey(caller.accountId);
      const verify = settings.verify && {
        ...settings.verify,
        secret: sealSecret(settings.verify.secret, deps.config.webhookSecretKey, key.webhookId),
      };
      const record: WebhookRecord = {
        id: key.webhookId,
        channel,
        label: settings.label,
        key_hash: hashSecret(key.secret),
        verify,
        dedup_header: settings.dedup_header,
      };
      const created = await store.webhooks.create(caller.accountId, caller.limits, record);
      return {
        id: record.id,
        url: `${publicBaseUrl(deps.config, req)}/hooks/${formatHookKey(key)}`,
        label: record.label,
        verify: publicVerify(record),
        dedup_header: record.dedup_header,
        created_at: created,
      };
    },
    get: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const entries = await store.webhooks.list(caller.accountId, channel);
      return { webhooks: entries.map(listEntry) };
    },
  });

  resource(router, `${base}/:webhookId`, {
    delete: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const id = String(req.params.webhookId);
      if (!/^[0-9a-f]{16}$/.test(id)) {
        throw badRequest('webhook id must be the 16 hexadecimal characters shown when created');
      }
      await store.webhooks.remove(caller.accountId, channel, id);
      return { deleted: true };
    },
  });

  return router;
}
