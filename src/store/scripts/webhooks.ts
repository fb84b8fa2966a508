/** lua/webhook_create.lua, lua/webhook_delete.lua, lua/webhook_lookup.lua: webhook endpoints. */
import { defineScript } from './define';

export interface WebhookCreateArgs {
  channel: string;
  webhook_id: string;
  /** the webhook record's JSON, written as given */
  record: string;
  max_webhooks: number;
}

/** Its calls pass the webhooks group (webhooks: true). */
export const webhookCreateScript = defineScript<WebhookCreateArgs>({
  name: 'webhook_create',
  keys: ['account', 'webhooks'],
  argv: ['channel', 'webhook_id', 'record', 'max_webhooks'],
});

/** created ms (Redis time) */
export type WebhookCreateReply = number;

export interface WebhookDeleteArgs {
  channel: string;
  webhook_id: string;
}

export const webhookDeleteScript = defineScript<WebhookDeleteArgs>({
  name: 'webhook_delete',
  keys: ['webhooks'],
  argv: ['channel', 'webhook_id'],
});

export interface WebhookLookupArgs {
  webhook_id: string;
}

export const webhookLookupScript = defineScript<WebhookLookupArgs>({
  name: 'webhook_lookup',
  keys: ['account', 'webhooks'],
  argv: ['webhook_id'],
});

/** [webhook record json or null, plan or null] */
export type WebhookLookupReply = [string | null, string | null];
