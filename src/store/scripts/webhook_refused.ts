/** lua/webhook_refused.lua: note a refused webhook delivery within the webhook's refusal window. */
import { defineScript } from './define';

export interface WebhookRefusedArgs {
  webhook_id: string;
  /** the check that failed, one line */
  reason: string;
}

export const webhookRefusedScript = defineScript<WebhookRefusedArgs>({
  name: 'webhook_refused',
  keys: ['account', 'webhooks', 'refusals'],
  argv: ['webhook_id', 'reason'],
});

/** [1 noted | 0 the window is full, ms until the window ends] */
export type WebhookRefusedReply = [number, number];
