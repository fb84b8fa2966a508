/**
 * `POST` / `PUT` `/hooks/{key}`: what a third-party service pushes becomes one
 * message in the webhook's channel, through the same send as the relay API.
 * No Authorization: the unguessable key is the credential, and it can only
 * write. Unknown or deleted keys are a 404; other methods a 405.
 */
import { Router, type Request } from 'express';
import { hashSecret, safeEqual } from '../auth/tokens';
import { AppError, notFound } from '../errors';
import type { HttpDeps } from '../http/context';
import { resource } from '../http/route';
import type { WebhookRecord } from '../store/types';
import { readExactBody } from './body';
import { dedupIdOf } from './dedup';
import { keptHeaders } from './headers';
import { parseHookKey } from './hookKey';
import { webhookMessage } from './message';
import { openSecret } from './secrets';
import { verifyDelivery } from './verify/index';

const unknownHook = () => notFound('unknown webhook URL (it may have been deleted)');

/** Every request header as one string, lower-case names (what verifiers read). */
function allHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function rawQuery(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}

export function webhookReceiver(deps: HttpDeps): Router {
  const router = Router();
  const { store, plans } = deps;

  async function findWebhook(
    keyText: string,
  ): Promise<{ account: string; webhook: WebhookRecord; plan: string }> {
    const key = parseHookKey(keyText);
    if (!key) throw unknownHook();
    const { webhook, plan } = await store.webhooks.lookup(key.accountId, key.webhookId);
    if (!webhook || plan === null || !safeEqual(hashSecret(key.secret), webhook.key_hash)) {
      throw unknownHook();
    }
    return { account: key.accountId, webhook, plan };
  }

  const receive = async (req: Request) => {
    const { account, webhook, plan } = await findWebhook(String(req.params.key));
    const limits = plans.limits(plan);
    // counted with the account's other requests (a webhook URL has no token of its own),
    // before its body is read
    const caller = { accountId: account, tokenId: `webhook-${webhook.id}`, proof: 'account' };
    await store.accounts.authorize({ ...caller, count: true }, null);
    const body = await readExactBody(req, limits.max_webhook_bytes);
    const headers = allHeaders(req);
    let verified: boolean | null = null;
    if (webhook.verify) {
      const secret = openSecret(webhook.verify.secret, deps.config.webhookSecretKey, webhook.id);
      verified = verifyDelivery(
        { ...webhook.verify, secret },
        { body, headers, nowMs: Date.now() },
      );
      if (!verified && webhook.verify.on_failure === 'reject') {
        throw new AppError(
          'UNAUTHORIZED',
          `webhook signature verification failed (scheme ${webhook.verify.scheme}); nothing was stored`,
        );
      }
    }
    const message = webhookMessage({
      webhookId: webhook.id,
      method: req.method,
      query: rawQuery(req),
      headers: keptHeaders(req.headers),
      body,
      receivedAt: Date.now(),
      verified,
      dedupId: dedupIdOf(webhook, headers, body),
    });
    const [id] = await store.queue.send({ ...caller, count: false }, webhook.channel, [message]);
    try {
      await store.webhooks.recordReceived(account, webhook.id);
    } catch (err) {
      // the message is stored: say so, even if its count could not be updated
      deps.logger.warn({ err, webhook: webhook.id }, 'could not count a webhook delivery');
    }
    return { id };
  };

  resource(router, '/hooks/:key', { post: receive, put: receive });
  return router;
}
