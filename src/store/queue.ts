/** Send, pull, ack and extend: the queue operations, each one script call. */
import crypto from 'node:crypto';
import type { StoreContext } from './context';
import { compactUuid, pulledMessageJson, uuidText } from './records';
import { ackScript, type AckArgs, type AckReply } from './scripts/ack';
import { callerArgs, type Caller } from './scripts/define';
import { extendScript, type ExtendArgs, type ExtendReply } from './scripts/extend';
import { pullScript, type PullArgs, type PullReply } from './scripts/pull';
import { releaseScript, type ReleaseArgs, type ReleaseReply } from './scripts/release';
import { sendScript, type SendArgs, type SendReply } from './scripts/send';
import type {
  AckResult,
  LeaseOptions,
  NewMessage,
  PullOptions,
  PullResult,
  QueueStore,
  Retry,
  SendOptions,
} from './types';

const NONCE_CHARS = 22;

/** batch random nonces of 22 base64url characters (132 bits each), concatenated */
export function nonces(batch: number): string {
  return crypto
    .randomBytes(Math.ceil((batch * NONCE_CHARS * 3) / 4) + 3)
    .toString('base64url')
    .slice(0, batch * NONCE_CHARS);
}

/** A script's rerun (with the right dead-letter keys) was counted by its first run. */
const rerun = (caller: Caller, attempt: number): Caller =>
  attempt === 0 || !caller.count ? caller : { ...caller, count: false };

export function createQueueStore(ctx: StoreContext): QueueStore {
  return {
    async send(caller, channel, messages: NewMessage[], options: SendOptions = {}) {
      const account = caller.accountId;
      const tail: (string | number)[] = [];
      for (const m of messages) {
        tail.push(
          compactUuid(m.id),
          m.delayMs ?? '',
          m.size,
          m.contentType,
          m.dedupId ?? '',
          m.metadataJson.length,
          m.metadataJson,
          m.bodyJson,
          m.groupId ?? '',
        );
      }
      tail.push(ctx.fanout.windowMs);
      const cap = options.sizeCap;
      if (cap) tail.push(cap.setting, cap.planLimit, ...cap.sizes);
      if (options.entrance) tail.push(options.entrance);
      const [compactIds, lowered, pendingMs, sequenceNumbers] = await ctx.run<SendReply, SendArgs>(
        sendScript,
        { account, channel, caller, webhooks: options.webhookId !== undefined },
        {
          ...callerArgs(caller),
          channel,
          must_exist: options.mustExist ? '1' : '0',
          webhook_id: options.webhookId ?? '',
          route_version: options.routeVersion ?? '0',
          n: messages.length,
        },
        tail,
      );
      const ids = compactIds.map(uuidText);
      if (options.sequenceNumbers) options.sequenceNumbers.push(...(sequenceNumbers ?? []));
      ctx.metrics.count('sent', messages.length === 1 ? 1 : new Set(ids).size);
      ctx.fanout.schedule(account, channel, pendingMs);
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return ids;
    },

    async pull(caller, channel, options: PullOptions): Promise<PullResult> {
      const account = caller.accountId;
      const reply = await ctx.withDeadLetter(account, channel, (dlq, attempt) =>
        ctx.run<PullReply, PullArgs>(
          pullScript,
          { account, channel, caller, deadLetter: dlq },
          {
            ...callerArgs(rerun(caller, attempt)),
            channel,
            must_exist: options.mustExist ? '1' : '0',
            visibility_timeout_ms: options.visibilityTimeoutMs ?? '',
            batch_size: options.batchSize,
            nonces: nonces(options.batchSize),
            dead_letter_channel: dlq,
            attempt_id: options.attemptId ?? '',
          },
        ),
      );
      const [backlogCount, flat, lowered, discarded, deadLettered, expired, receiveWait] = reply;
      const messages: string[] = [];
      for (let i = 0; i < flat.length; i += 2)
        messages.push(pulledMessageJson(flat[i], flat[i + 1]));
      ctx.metrics.count('pulled', messages.length);
      ctx.metrics.count('discarded', discarded);
      ctx.metrics.count('dead_lettered', deadLettered);
      ctx.metrics.count('expired', expired);
      await ctx.lowerDue(account, lowered);
      return { backlogCount, messages, receiveWaitMs: receiveWait ?? null };
    },

    async ack(
      caller,
      channel,
      leaseIds: string[],
      retries: Retry[],
      options: LeaseOptions = {},
    ): Promise<AckResult> {
      const account = caller.accountId;
      const tail: (string | number)[] = [...leaseIds, retries.length];
      for (const r of retries) tail.push(r.leaseId, r.delayMs);
      // Only retries can move a message to the dead-letter channel: plain acks take no keys of it.
      const run = (dlq: string, attempt: number) =>
        ctx.run<AckReply, AckArgs>(
          ackScript,
          { account, channel, caller, deadLetter: dlq },
          {
            ...callerArgs(rerun(caller, attempt)),
            channel,
            must_exist: options.mustExist ? '1' : '0',
            dead_letter_channel: dlq,
            a: leaseIds.length,
          },
          tail,
        );
      const [ackedCount, retriedCount, lowered] =
        retries.length > 0 ? await ctx.withDeadLetter(account, channel, run) : await run('', 0);
      ctx.metrics.count('acked', ackedCount);
      ctx.metrics.count('retried', retriedCount);
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return { ackedCount, retriedCount };
    },

    async extend(caller, channel, leaseIds, visibilityTimeoutMs, options: LeaseOptions = {}) {
      const account = caller.accountId;
      const [extended, lowered] = await ctx.run<ExtendReply, ExtendArgs>(
        extendScript,
        { account, channel, caller },
        {
          ...callerArgs(caller),
          channel,
          must_exist: options.mustExist ? '1' : '0',
          visibility_timeout_ms: visibilityTimeoutMs ?? '',
        },
        leaseIds,
      );
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return extended;
    },

    async release(account, channel, leaseIds) {
      if (leaseIds.length === 0) return 0;
      const released = await ctx.run<ReleaseReply, ReleaseArgs>(
        releaseScript,
        { account, channel },
        { channel },
        leaseIds,
      );
      ctx.metrics.count('released', Number(released));
      return Number(released);
    },
  };
}
