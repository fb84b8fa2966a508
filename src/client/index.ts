/** relayq/client: the SDK for producers and consumers of a relayq relay. */
export { RelayClient, type RelayClientOptions } from './client';
export { RelayError } from './errors';
export {
  Consumer,
  type ConsumeOptions,
  type ConsumerErrorContext,
  type HandlerContext,
  type MessageHandler,
  type StopOptions,
} from './consumer';
export {
  forward,
  retryDelaySeconds,
  sendRequest,
  DeliveryFailed,
  type DeliveryReport,
  type ForwardOptions,
} from './forward';
export { messageRequest, targetUrl, bodyBytes, type ForwardRequest } from './forwardRequest';
export { Subscription, subscriptionUrl, type SubscriptionOptions } from './subscription';
export type { BackoffOptions } from './backoff';
export type { RetryPolicy } from './http';
export type * from './types';
