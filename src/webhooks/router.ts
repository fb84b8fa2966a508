/**
 * Webhook endpoints of a channel: create (the URL is shown once), list,
 * delete. Callers are tokens allowed to use the channel and owner sessions,
 * as for the channel's other management endpoints.
 */
import { Router, type Request } from 'express';
import { hashSecret } from '../auth/tokens';
import { invalidField } from '../errors';
import type { Relay, WebhookEntry, WebhookRecord } from '../relay';
import { objectBody } from '../web/body';
import { requestCaller } from '../web/caller';
import { channelParam } from '../web/params';
import { publicBaseUrl } from '../web/publicUrl';
import { resource } from '../web/route';
import { formatHookKey, newHookKey } from './hookKey';
import { validateCreateWebhook, validateSignAgain } from './schema';
import { sealSecret } from '../auth/webhookSecrets';

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
    group_by: entry.group_by ?? null,
    created_at: entry.created_ms,
    last_received_at: entry.last_received_ms,
    received_count: entry.received_count,
    last_refusal: entry.last_refusal,
  };
}

export function webhooksRouter(relay: Relay): Router {
  const router = Router();

  async function channelCaller(req: Request) {
    const caller = await relay.authorize(requestCaller(req));
    return { caller, channel: channelParam(req) };
  }

  const base = '/v1/relay/channels/:channelId/webhooks';

  resource(router, base, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const settings = validateCreateWebhook(objectBody(req.body));
      const key = newHookKey(caller.accountId);
      const verify = settings.verify && {
        ...settings.verify,
        secret: sealSecret(settings.verify.secret, relay.config.webhookSecretKey, key.webhookId),
      };
      const record: WebhookRecord = {
        id: key.webhookId,
        channel,
        label: settings.label,
        key_hash: hashSecret(key.secret),
        verify,
        dedup_header: settings.dedup_header,
        group_by: settings.group_by,
      };
      const created = await relay.webhooks.create(caller, record);
      return {
        id: record.id,
        url: `${publicBaseUrl(relay.config, req)}/hooks/${formatHookKey(key)}`,
        label: record.label,
        verify: publicVerify(record),
        dedup_header: record.dedup_header,
        group_by: record.group_by ?? null,
        created_at: created,
      };
    },
    get: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const entries = await relay.webhooks.list(caller, channel);
      return { webhooks: entries.map(listEntry) };
    },
  });

  // before /:webhookId: a pulled delivery's provider signature made afresh (docs/api/webhooks.md)
  resource(router, `${base}/signatures`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const { message } = validateSignAgain(objectBody(req.body));
      const headers = await relay.webhooks.signAgain(caller, channel, message);
      if (!headers)
        throw invalidField(
          'message must be a pulled delivery verified with the stripe or standard-webhooks scheme (metadata.webhook.replay_seal)',
        );
      return { headers };
    },
  });

  resource(router, `${base}/:webhookId`, {
    delete: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const id = String(req.params.webhookId);
      if (!/^[0-9a-f]{16}$/.test(id)) {
        throw invalidField('webhook id must be the 16 hexadecimal characters shown when created');
      }
      await relay.webhooks.remove(caller, channel, id);
      return { deleted: true };
    },
  });

  return router;
}
