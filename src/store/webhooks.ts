/**
 * Webhook endpoints of a channel, in one hash per account (keys.ts
 * webhooksKey). The record keeps the sha256 of the URL key's secret part and,
 * when verification is configured, the signing secret (needed to check each
 * delivery; never returned by any API).
 */
import type { StoreContext } from './context';
import { webhooksKey } from './keys';
import {
  webhookCreateScript,
  webhookDeleteScript,
  webhookLookupScript,
  type WebhookCreateArgs,
  type WebhookDeleteArgs,
  type WebhookLookupArgs,
  type WebhookLookupReply,
} from './scripts/webhooks';
import {
  webhookRefusedScript,
  type WebhookRefusedArgs,
  type WebhookRefusedReply,
} from './scripts/webhook_refused';
import type { WebhookEntry, WebhookLookup, WebhookRecord, WebhookStore } from './types';

/** Most webhooks one account may have (bounds the walk channel_delete makes). */
export const MAX_WEBHOOKS_PER_ACCOUNT = 100;

export function createWebhookStore(ctx: StoreContext): WebhookStore {
  return {
    async create(account, webhook: WebhookRecord) {
      return ctx.run<number, WebhookCreateArgs>(
        webhookCreateScript,
        { account, channel: webhook.channel, webhooks: true },
        {
          channel: webhook.channel,
          webhook_id: webhook.id,
          record: JSON.stringify(webhook),
          max_webhooks: MAX_WEBHOOKS_PER_ACCOUNT,
        },
      );
    },

    async list(account, channel) {
      const all = await ctx.command((redis) => redis.hgetall(webhooksKey(account)));
      const out: WebhookEntry[] = [];
      for (const [field, json] of Object.entries(all)) {
        if (field.includes(':')) continue;
        const record = JSON.parse(json) as WebhookRecord;
        if (record.channel !== channel) continue;
        const last = all[`${field}:last`];
        const refusal = all[`${field}:refusal`] ?? '';
        const bar = refusal.indexOf('|');
        out.push({
          ...record,
          created_ms: Number(all[`${field}:created`] ?? 0),
          received_count: Number(all[`${field}:count`] ?? 0),
          last_received_ms: last === undefined || last === '0' ? null : Number(last),
          last_refusal:
            bar < 0 ? null : { at: Number(refusal.slice(0, bar)), reason: refusal.slice(bar + 1) },
        });
      }
      return out.sort((a, b) => a.created_ms - b.created_ms || a.id.localeCompare(b.id));
    },

    async remove(account, channel, id) {
      await ctx.run<unknown, WebhookDeleteArgs>(
        webhookDeleteScript,
        { account, channel, webhooks: true, id },
        { channel, webhook_id: id },
      );
    },

    async lookup(account, id): Promise<WebhookLookup> {
      const [json, plan] = await ctx.run<WebhookLookupReply, WebhookLookupArgs>(
        webhookLookupScript,
        { account, webhooks: true },
        { webhook_id: id },
      );
      return { webhook: json ? (JSON.parse(json) as WebhookRecord) : null, plan };
    },

    async refused(account, id, reason) {
      const [noted, waitMs] = await ctx.run<WebhookRefusedReply, WebhookRefusedArgs>(
        webhookRefusedScript,
        { account, webhooks: true, webhookId: id },
        { webhook_id: id, reason },
      );
      return { noted: noted === 1, gone: noted === -1, waitMs };
    },
  };
}
