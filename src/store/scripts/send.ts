/** lua/send.lua: store messages in a channel for a caller checked in the same call. */
import { defineScript, type CallerArgs } from './define';

export interface SendArgs extends CallerArgs {
  channel: string;
  /** '1': refuse a channel that does not exist (CHANNEL_NOT_FOUND) instead of creating it */
  must_exist: '0' | '1';
  /** the webhook a delivery came through ('' for none; its key group is then passed) */
  webhook_id: string;
  /** '0': the pod believes the channel has no routes (else ROUTES_CHANGED) */
  route_version: string;
  /** the number of messages; 9 values each follow, then fanout_window_ms */
  n: number;
}

export const sendScript = defineScript<SendArgs>({
  name: 'send',
  keys: ['account', 'channel', 'caller', 'routes', 'history', 'webhooks'],
  argv: ['token_id', 'proof', 'rate', 'channel', 'must_exist', 'webhook_id', 'route_version', 'n'],
});

/**
 * [ids in request order, lowered due ms or null, ms until a coalesced announcement or null,
 * FIFO sequence numbers ('' each on a channel that is not FIFO)]
 */
export type SendReply = [string[], number | null, number | null, string[]];
