/**
 * Webhook URLs of a channel: create (the URL's key is shown once), list, delete, and the
 * lookup a delivery starts with. A webhook never changes once created (a new one replaces
 * it), so a pod keeps what it looked up: the send that stores a delivery checks that the
 * webhook still exists in the same call, and a deleted webhook is forgotten at once.
 */
import { webhookCaller } from '../auth/credential';
import { hashSecret, safeEqual } from '../auth/tokens';
import { openSecret } from '../auth/webhookSecrets';
import { RelayError, rateLimited } from '../errors';
import type { NewMessage, WebhookEntry, WebhookRecord } from '../store/types';
import type { PlanLimits } from '../types';
import { checkChannelScope, type AuthContext } from './authorize';
import type { RelayDeps } from './deps';
import type { Routes, SendResult } from './routes';
import { sealedWebhookOf, withFreshWebhookSignature, type ReplaySigner } from './replaySignatures';

/** A webhook a delivery may go to, with its account's plan limits. */
export interface FoundWebhook {
  account: string;
  webhook: WebhookRecord;
  plan: string;
  limits: PlanLimits;
}

const CACHE_MAX = 10_000;
/** How long a looked-up webhook is trusted for its plan (the send checks that it exists). */
const CACHE_MS = 10_000;

export const unknownWebhook = () =>
  new RelayError('webhook_not_found', 'unknown webhook URL (it may have been deleted)');

export function createWebhooks(deps: RelayDeps, routes: Routes) {
  const { store } = deps;
  const found = new Map<string, { value: FoundWebhook; at: number }>();
  /** webhooks whose refusal window is full, until when (this pod answers 429 without Redis) */
  const refusing = new Map<string, number>();

  const signers = new Map<string, { value: ReplaySigner | null; at: number }>();

  /**
   * What signs a replay of the webhook's deliveries afresh (stripe and standard-webhooks
   * schemes; null for the others and for a webhook gone), kept on this pod for a while.
   */
  async function replaySigner(account: string, webhookId: string): Promise<ReplaySigner | null> {
    const key = `${account}\u0000${webhookId}`;
    const cached = signers.get(key);
    if (cached && deps.clock() - cached.at < CACHE_MS) return cached.value;
    const { webhook } = await store.webhooks.lookup(account, webhookId);
    const verify = webhook?.verify;
    const value =
      verify && (verify.scheme === 'stripe' || verify.scheme === 'standard-webhooks')
        ? {
            scheme: verify.scheme,
            secret: openSecret(verify.secret, deps.config.webhookSecretKey, webhookId),
          }
        : null;
    if (signers.size >= CACHE_MAX) signers.clear();
    signers.set(key, { value, at: deps.clock() });
    return value;
  }

  return {
    replaySigner,

    /**
     * Pulled messages (JSON text) with the webhook headers of sealed, verified deliveries
     * (stripe, standard-webhooks) signed afresh now: what relayq forward, the SDK's forward()
     * and push destinations replay is accepted by the provider's library however long it
     * waited. Others are returned as they are.
     */
    async resign(account: string, messages: string[]): Promise<string[]> {
      if (!messages.some((m) => m.includes('"replay_seal"'))) return messages;
      return Promise.all(
        messages.map(async (json) => {
          const webhook = sealedWebhookOf(json);
          if (!webhook) return json;
          try {
            const signer = await replaySigner(account, webhook.id);
            return signer ? withFreshWebhookSignature(signer, json, deps.clock()) : json;
          } catch (err) {
            // the message is leased already: it goes out with the signature it arrived with
            deps.log.warn(
              { account, webhook: webhook.id, error: (err as Error).message },
              'webhook replay not signed afresh',
            );
            return json;
          }
        }),
      );
    },

    /**
     * The webhook headers of one pulled message, signed afresh now (for a consumer that holds a
     * message and retries it later: relayq forward, the SDK's forward()); null when it is not
     * a sealed, verified delivery of one of the account's webhooks. The seal proves the body
     * came through the webhook URL, so nothing else can be signed this way.
     */
    async signAgain(
      auth: AuthContext,
      channel: string,
      message: Record<string, unknown>,
    ): Promise<Record<string, string> | null> {
      checkChannelScope(auth, channel);
      const json = JSON.stringify(message);
      const webhook = sealedWebhookOf(json);
      if (!webhook) return null;
      const signer = await replaySigner(auth.accountId, webhook.id);
      if (!signer) return null;
      const fresh = withFreshWebhookSignature(signer, json, deps.clock());
      if (fresh === json) return null;
      const m = JSON.parse(fresh) as { metadata: { webhook: { headers: Record<string, string> } } };
      return m.metadata.webhook.headers;
    },

    /** Stores the webhook (creating its channel if needed); returns its creation time. */
    async create(auth: AuthContext, record: WebhookRecord): Promise<number> {
      checkChannelScope(auth, record.channel);
      return store.webhooks.create(auth.accountId, record);
    },

    async list(auth: AuthContext, channel: string): Promise<WebhookEntry[]> {
      checkChannelScope(auth, channel);
      return store.webhooks.list(auth.accountId, channel);
    },

    async remove(auth: AuthContext, channel: string, id: string): Promise<void> {
      checkChannelScope(auth, channel);
      await store.webhooks.remove(auth.accountId, channel, id);
      found.delete(`${auth.accountId}\u0000${id}`);
    },

    /**
     * The webhook a URL key names, its secret part checked in constant time; a key that
     * names none (or a deleted one) is webhook_not_found. Kept on this pod for a while.
     */
    async find(account: string, webhookId: string, secret: string): Promise<FoundWebhook> {
      const cacheKey = `${account}\u0000${webhookId}`;
      const cached = found.get(cacheKey);
      let value: FoundWebhook;
      if (cached && deps.clock() - cached.at < CACHE_MS) {
        value = cached.value;
      } else {
        const { webhook, plan } = await store.webhooks.lookup(account, webhookId);
        if (!webhook || plan === null) {
          found.delete(cacheKey);
          throw unknownWebhook();
        }
        value = { account, webhook, plan, limits: deps.plans.limits(plan) };
        if (found.size >= CACHE_MAX) found.clear();
        found.set(cacheKey, { value, at: deps.clock() });
      }
      if (!safeEqual(hashSecret(secret), value.webhook.key_hash)) throw unknownWebhook();
      return value;
    },

    /**
     * Refuses a delivery (its signature, its size) with the reason the sender needs, noted as
     * the webhook's last_refusal and logged; never counted against the account's rate. Past
     * the plan's webhook_refusals_per_second for this URL it is a 429, and this pod answers
     * the rest of that second without Redis.
     */
    async refuse(to: FoundWebhook, reason: string, refusal: RelayError): Promise<never> {
      const key = `${to.account}\u0000${to.webhook.id}`;
      const now = deps.clock();
      let until = refusing.get(key) ?? 0;
      if (until <= now) {
        refusing.delete(key);
        const { noted, gone, waitMs } = await store.webhooks.refused(
          to.account,
          to.webhook.id,
          reason,
        );
        if (gone) {
          found.delete(key);
          throw unknownWebhook();
        }
        if (noted) {
          deps.log.info(
            { account: to.account, webhook: to.webhook.id, reason },
            'webhook delivery refused',
          );
          throw refusal;
        }
        until = now + waitMs;
        if (refusing.size >= CACHE_MAX) refusing.clear();
        refusing.set(key, until);
      }
      const per = to.limits.webhook_refusals_per_second;
      throw rateLimited(
        until - now,
        (wait) =>
          `too many refused deliveries to this webhook URL: at most ${per} per second (webhook_refusals_per_second); the last: ${reason}; retry after ${wait} s`,
      );
    },

    /**
     * Stores a delivery in the webhook's channel: one call that checks the webhook still
     * exists, counts the request against the account's rate and counts the delivery.
     */
    async deliver(to: FoundWebhook, message: NewMessage): Promise<SendResult> {
      const { account, webhook } = to;
      try {
        return await routes.send(webhookCaller(account, webhook.id), webhook.channel, [message], {
          webhookId: webhook.id,
        });
      } catch (err) {
        if (!(err instanceof RelayError) || err.code !== 'webhook_not_found') throw err;
        found.delete(`${account}\u0000${webhook.id}`);
        throw unknownWebhook();
      }
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
