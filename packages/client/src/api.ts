/** The part of the client a consumer needs (kept narrow so the consumer can be tested alone). */
import type { AckOptions, AckResult, ExtendResult, PullOptions, PullResult } from './types.js';

export interface RelayApi {
  readonly url: string;
  readonly token: string;
  pull(channel: string, options?: PullOptions): Promise<PullResult>;
  ack(
    channel: string,
    leaseIds: string[],
    options?: AckOptions,
    signal?: AbortSignal,
  ): Promise<AckResult>;
  extend(channel: string, leaseIds: string[], visibilityTimeoutMs?: number): Promise<ExtendResult>;
}
