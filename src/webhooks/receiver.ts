/**
 * `POST` / `PUT` `/hooks/{key}`: what a third-party service pushes becomes one
 * message in the webhook's channel, through the same send as the relay API.
 * No Authorization: the unguessable key is the credential, and it can only
 * write. Unknown or deleted keys are a 404; other methods a 405.
 */
import type { Request } from 'express';
import { RelayError } from '../errors';
import { unknownWebhook, type Relay } from '../relay';
import { EndpointTable } from '../web/endpointTable';
import { resource } from '../web/route';
import { searchOf } from '../web/search';
import { readExactBody } from './body';
import { dedupIdOf } from './dedup';
import { keptHeaders } from './headers';
import { parseHookKey } from './hookKey';
import { webhookMessage } from './message';
import { deliveryGroup } from './groupBy';
import { openSecret } from '../auth/webhookSecrets';
import { verifyDelivery } from './verify/index';

/** Every request header as one string, lower-case names (what verifiers read). */
function allHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * The receiver's endpoint, in a table answered in front of the app without a router
 * (src/web/endpointTable.ts): webhooks are this product's main way in.
 */
export function webhookReceiver(relay: Relay): EndpointTable {
  const router = new EndpointTable();

  const receive = async (req: Request) => {
    const key = parseHookKey(String(req.params.key));
    if (!key) throw unknownWebhook();
    const found = await relay.webhooks.find(key.accountId, key.webhookId, key.secret);
    const { webhook } = found;
    const max = found.limits.max_webhook_bytes;
    let body: Buffer;
    try {
      body = await readExactBody(req, max);
    } catch (err) {
      if (!(err instanceof RelayError) || err.code !== 'body_too_large') throw err;
      return relay.webhooks.refuse(found, `body over ${max} bytes (max_webhook_bytes)`, err);
    }
    const headers = allHeaders(req);
    let verified: boolean | null = null;
    let failure: string | null = null;
    let replaySecret: string | null = null;
    if (webhook.verify) {
      const { scheme, on_failure } = webhook.verify;
      const secret = openSecret(webhook.verify.secret, relay.config.webhookSecretKey, webhook.id);
      // their replays are signed afresh (src/relay/replaySignatures.ts)
      if (scheme === 'stripe' || scheme === 'standard-webhooks') replaySecret = secret;
      failure = verifyDelivery({ ...webhook.verify, secret }, { body, headers, nowMs: Date.now() });
      verified = failure === null;
      if (failure !== null && on_failure === 'reject') {
        return relay.webhooks.refuse(
          found,
          failure,
          new RelayError(
            'invalid_credential',
            `webhook signature verification failed (scheme ${scheme}): ${failure}; nothing was stored`,
          ),
        );
      }
    }
    const message = webhookMessage({
      webhookId: webhook.id,
      method: req.method,
      query: searchOf(req),
      headers: keptHeaders(req.headers),
      body,
      receivedAt: Date.now(),
      verified,
      verifyFailure: failure,
      // an unverified delivery (on_failure record) neither claims nor matches a dedup id:
      // a forgery must not take a genuine delivery's place
      dedupId: verified === false ? null : dedupIdOf(webhook, headers, body),
      groupId: deliveryGroup(webhook.group_by, headers, body),
      replaySecret,
    });
    // one call: the webhook still exists, the account's rate counted, the delivery counted
    const { ids, routed } = await relay.webhooks.deliver(found, message);
    return routed ? { id: ids[0], routed: routed[0] } : { id: ids[0] };
  };

  resource(router, '/hooks/:key', { post: receive, put: receive });
  return router;
}
