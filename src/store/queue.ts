/** Send, pull, ack and extend: the queue operations, each one script call. */
import crypto from 'node:crypto';
import { AppError } from '../errors';
import type { StoreContext } from './context';
import { accountKeyList, channelKeyList } from './keys';
import { pulledMessageJson } from './records';
import { limitErrors, scriptFailure } from './storeErrors';
import type {
  AckResult,
  NewMessage,
  PlanLimits,
  PullOptions,
  PullResult,
  QueueStore,
  Retry,
} from './types';

const NONCE_CHARS = 22;

/** batch random nonces of 22 base64url characters (132 bits each), concatenated */
function nonces(batch: number): string {
  return crypto
    .randomBytes(Math.ceil((batch * NONCE_CHARS * 3) / 4) + 3)
    .toString('base64url')
    .slice(0, batch * NONCE_CHARS);
}

const STORAGE_CEILING = 1_048_576;
/** Room for a webhook message's metadata (its headers, at most 16 KB, JSON-escaped). */
const WEBHOOK_METADATA_ROOM = 65_536;

/**
 * The storage layer's ceiling on one message's size: 1 MiB, or more for a plan
 * whose webhook bodies may be larger (a webhook message's size counts its raw
 * body bytes plus its metadata).
 */
export function storageCeiling(limits: PlanLimits): number {
  return Math.max(STORAGE_CEILING, limits.max_webhook_bytes + WEBHOOK_METADATA_ROOM);
}

/** Maps the errors send can answer with to what the client is told. */
function sendError(err: unknown, limits: PlanLimits): unknown {
  const failure = scriptFailure(err);
  switch (failure?.code) {
    case 'ACCOUNT_NOT_FOUND':
      return limitErrors.accountGone();
    case 'CHANNEL_LIMIT':
      return limitErrors.channels(limits);
    case 'STORAGE_LIMIT':
      return new AppError(
        'FORBIDDEN',
        `storage limit reached: the plan allows at most ${limits.max_storage_bytes} bytes of stored messages`,
      );
    case 'MESSAGE_TOO_LARGE': {
      const [index, ceiling] = failure.detail.split(' ');
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `messages[${index}] is over the ${ceiling}-byte storage ceiling`,
      );
    }
    default:
      return err;
  }
}

export function createQueueStore(ctx: StoreContext): QueueStore {
  return {
    async send(account, channel, limits, messages: NewMessage[]) {
      const args: (string | number)[] = [
        channel,
        limits.max_storage_bytes,
        limits.max_channels,
        limits.retention_seconds * 1000,
        messages.length,
      ];
      for (const m of messages) {
        args.push(
          m.id,
          m.delayMs ?? '',
          m.size,
          m.contentType,
          m.dedupId ?? '',
          m.metadataJson.length,
          m.metadataJson,
          m.bodyJson,
        );
      }
      args.push(ctx.fanout.windowMs, storageCeiling(limits));
      let reply: [string[], number | null, number | null];
      try {
        reply = await ctx.call(
          'send',
          [...accountKeyList(account), ...channelKeyList(account, channel)],
          args,
        );
      } catch (err) {
        throw sendError(err, limits);
      }
      const [ids, lowered, pendingMs] = reply;
      const stored = new Set(ids).size;
      ctx.metrics.count('sent', stored);
      ctx.fanout.schedule(account, channel, pendingMs);
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return ids;
    },

    async pull(account, channel, limits, options: PullOptions): Promise<PullResult> {
      const reply = await ctx.withDeadLetterKeys(account, channel, (keys, dlq) =>
        ctx.call<[number, string[], number | null, number, number, number]>('pull', keys, [
          channel,
          options.visibilityTimeoutMs ?? '',
          options.batchSize,
          nonces(options.batchSize),
          dlq,
          limits.max_channels,
        ]),
      );
      const [backlogCount, flat, lowered, discarded, deadLettered, expired] = reply;
      const messages: string[] = [];
      for (let i = 0; i < flat.length; i += 2)
        messages.push(pulledMessageJson(flat[i], flat[i + 1]));
      ctx.metrics.count('pulled', messages.length);
      ctx.metrics.count('discarded', discarded);
      ctx.metrics.count('dead_lettered', deadLettered);
      ctx.metrics.count('expired', expired);
      await ctx.lowerDue(account, lowered);
      return { backlogCount, messages };
    },

    async ack(account, channel, limits, leaseIds: string[], retries: Retry[]): Promise<AckResult> {
      const run = (keys: string[], dlq: string) => {
        const args: (string | number)[] = [
          channel,
          dlq,
          limits.max_channels,
          leaseIds.length,
          ...leaseIds,
          retries.length,
        ];
        for (const r of retries) args.push(r.leaseId, r.delayMs);
        return ctx.call<[number, number, number | null]>('ack', keys, args);
      };
      const [ackedCount, retriedCount, lowered] =
        retries.length > 0
          ? await ctx.withDeadLetterKeys(account, channel, run)
          : await run(
              [
                ...accountKeyList(account),
                ...channelKeyList(account, channel),
                ...channelKeyList(account, channel),
              ],
              '',
            );
      ctx.metrics.count('acked', ackedCount);
      ctx.metrics.count('retried', retriedCount);
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return { ackedCount, retriedCount };
    },

    async extend(account, channel, leaseIds, visibilityTimeoutMs) {
      const [extended, lowered] = await ctx.call<[number, number | null]>(
        'extend',
        [...accountKeyList(account), ...channelKeyList(account, channel)],
        [channel, visibilityTimeoutMs ?? '', ...leaseIds],
      );
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return extended;
    },

    async release(account, channel, leaseIds) {
      if (leaseIds.length === 0) return 0;
      const released = await ctx.call<number>(
        'release',
        [...accountKeyList(account), ...channelKeyList(account, channel)],
        [channel, ...leaseIds],
      );
      ctx.metrics.count('released', Number(released));
      return Number(released);
    },
  };
}
