/** @relayq/client: the SDK for producers and consumers of a relayq relay. */
export { RelayClient, type RelayClientOptions } from './client.js';
export { RelayError } from './errors.js';
export {
  Consumer,
  type ConsumeOptions,
  type ConsumerErrorContext,
  type HandlerContext,
  type MessageHandler,
  type StopOptions,
} from './consumer.js';
export {
  forward,
  retryDelaySeconds,
  sendRequest,
  DeliveryFailed,
  type DeliveryReport,
  type ForwardOptions,
} from './forward.js';
export { messageRequest, targetUrl, bodyBytes, type ForwardRequest } from './forwardRequest.js';
export { Subscription, subscriptionUrl, type SubscriptionOptions } from './subscription.js';
export { BEARER_PROTOCOL_PREFIX } from './socket.js';
export { fromWire, toWire } from './wire.js';
export type { BackoffOptions } from './backoff.js';
export type { RetryPolicy } from './http.js';
export type * from './types.js';
