/** lua/send_routed.lua: store messages that arrived at a channel with routes as copies in their targets. */
import { defineScript, type CallerArgs } from './define';

export interface SendRoutedArgs extends CallerArgs {
  channel: string;
  must_exist: '0' | '1';
  webhook_id: string;
  /** the version of the routes the pod evaluated */
  route_version: string;
  fanout_window_ms: number;
  /** the number of target channels (their ids follow, then n and the messages) */
  c: number;
}

export const sendRoutedScript = defineScript<SendRoutedArgs>({
  name: 'send_routed',
  keys: ['account', 'caller', 'routes', 'webhooks', 'channels'],
  argv: [
    'token_id',
    'proof',
    'rate',
    'channel',
    'must_exist',
    'webhook_id',
    'route_version',
    'fanout_window_ms',
    'c',
  ],
});

/**
 * [per message [target index, compact id, FIFO sequence number or '', ...], lowered due ms or
 * null, [target index, ms, ...]]
 */
export type SendRoutedReply = [(string | number)[][], number | null, number[]];
