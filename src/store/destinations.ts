/**
 * Push destinations: one per channel at most, kept beside the channel's keys (keys.ts
 * destinationKeyList); every change is a script (lua/destination_*.lua). A service-wide set
 * lists the channels that have one, so that every pod's deliveries find them (written after
 * the account's script: another slot on a Cluster).
 */
import type { StoreContext } from './context';
import type {
  AttemptResult,
  DestinationConfig,
  DestinationRecord,
  DestinationState,
  DestinationStore,
  TakenMessage,
} from './destinationTypes';
import { destinationKeyList, destinationsIndexKey } from './keys';
import { nonces } from './queue';
import { pulledMessageJson } from './records';
import {
  destinationDeleteScript,
  destinationRedriveScript,
  destinationResultScript,
  destinationResultTail,
  destinationSaveScript,
  destinationTakeScript,
  type DestinationDeleteArgs,
  type DestinationRedriveArgs,
  type DestinationResultArgs,
  type DestinationResultReply,
  type DestinationSaveArgs,
  type DestinationSaveReply,
  type DestinationTakeArgs,
  type DestinationTakeReply,
} from './scripts/destinations';

const member = (account: string, channel: string) => `${account}/${channel}`;

/** The leases a take answered (lease id, record, attempt, ...) as messages. */
function takenMessages(flat: (string | number)[]): TakenMessage[] {
  const messages: TakenMessage[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    const leaseId = String(flat[i]);
    messages.push({
      leaseId,
      messageJson: pulledMessageJson(leaseId, String(flat[i + 1])),
      attempt: Number(flat[i + 2]),
    });
  }
  return messages;
}

export function createDestinationStore(ctx: StoreContext): DestinationStore {
  const num = (v: string | undefined): number | null =>
    v === undefined || v === '' || v === '0' ? null : Number(v);

  return {
    async save(account, channel, id, mode, change) {
      const [createdMs, state] = await ctx.run<DestinationSaveReply, DestinationSaveArgs>(
        destinationSaveScript,
        { account, channel, id },
        {
          channel,
          id,
          mode,
          config: change.config ? JSON.stringify(change.config) : '',
          state: change.state ?? '',
          secret: change.secret ?? '',
          previous_ms: change.previousMs ?? 0,
        },
      );
      if (mode === 'create') {
        await ctx.command((redis) => redis.sadd(destinationsIndexKey, member(account, channel)));
      }
      return { createdMs, state: state as DestinationState };
    },

    async get(account, channel) {
      const [dst, , , dead] = destinationKeyList(account, channel);
      const [[, all], [, deadCount]] = (await ctx.command((redis) =>
        // dead messages are scored by their expiry: the unexpired ones
        redis.multi().hgetall(dst).zcount(dead, `(${Date.now()}`, '+inf').exec(),
      )) as [[unknown, Record<string, string>], [unknown, number]];
      if (!all.id) return null;
      const previousUntil = Number(all.previous_until ?? 0);
      return {
        id: all.id,
        channel,
        config: JSON.parse(all.config) as DestinationConfig,
        state: all.state as DestinationState,
        created_ms: Number(all.created),
        secret: all.secret,
        previous_secret:
          all.previous_secret && previousUntil > Date.now() ? all.previous_secret : null,
        last_success_ms: num(all.last_success_at),
        last_failure_ms: num(all.last_failure_at),
        last_failure: all.last_failure || null,
        consecutive_failures: Number(all.fails ?? 0),
        disabled_reason: all.state === 'disabled' ? (all.disabled_reason ?? null) : null,
        open_until_ms: Number(all.open_until ?? 0),
        dead_count: deadCount,
      } satisfies DestinationRecord;
    },

    async remove(account, channel, id) {
      const back = await ctx.run<number, DestinationDeleteArgs>(
        destinationDeleteScript,
        { account, channel, id },
        { channel, id },
      );
      await ctx.command((redis) => redis.srem(destinationsIndexKey, member(account, channel)));
      return back;
    },

    async redrive(account, channel, id, max) {
      return ctx.run<number, DestinationRedriveArgs>(
        destinationRedriveScript,
        { account, channel, id },
        { channel, id, max },
      );
    },

    async attempts(account, channel, offset, limit) {
      const [, log] = destinationKeyList(account, channel);
      const entries = await ctx.command((redis) => redis.lrange(log, offset, offset + limit));
      return { entries: entries.slice(0, limit), more: entries.length > limit };
    },

    async take(account, channel, id, max) {
      const [status, waitMs, flat, lowered] = await ctx.run<
        DestinationTakeReply,
        DestinationTakeArgs
      >(destinationTakeScript, { account, channel, id }, { channel, id, max, nonces: nonces(max) });
      await ctx.lowerDue(account, lowered);
      return { status, waitMs, messages: takenMessages(flat) };
    },

    async settle(account, channel, id, outcomes, settings, takeMax) {
      const tail = destinationResultTail(
        outcomes.map((o) => ({
          lease_id: o.leaseId,
          outcome: o.outcome,
          retry_after_ms: o.retryAfterMs ?? '',
          failure: o.failure,
          entry: o.entry,
          attempt: o.attempt,
          duration_ms: o.durationMs,
          status: o.status ?? '',
        })),
      );
      const [flat, lowered, status, waitMs, taken] = await ctx.withDeadLetter(
        account,
        channel,
        (dlq) =>
          ctx.run<DestinationResultReply, DestinationResultArgs>(
            destinationResultScript,
            { account, channel, id, deadLetter: dlq },
            {
              channel,
              id,
              log_max: settings.logMax,
              cooldown_ms: settings.cooldownMs,
              disable_after_ms: settings.disableAfterMs,
              dead_letter_channel: dlq,
              take_max: takeMax,
              nonces: takeMax > 0 ? nonces(takeMax) : '',
              n: outcomes.length,
            },
            tail,
          ),
      );
      await ctx.lowerDue(account, lowered);
      const results: AttemptResult[] = [];
      for (let i = 0; i < flat.length; i += 3) {
        results.push({
          result: flat[i] as AttemptResult['result'],
          delayMs: Number(flat[i + 1]),
          breakerOpenedMs: Number(flat[i + 2]),
        });
      }
      const acked = results.filter((r) => r.result === 'acked').length;
      if (acked > 0) ctx.metrics.count('acked', acked);
      return { results, taken: { status, waitMs, messages: takenMessages(taken) } };
    },

    async all() {
      const members = await ctx.command((redis) => redis.smembers(destinationsIndexKey));
      return members.map((m) => {
        const slash = m.indexOf('/');
        return { account: m.slice(0, slash), channel: m.slice(slash + 1) };
      });
    },
  };
}
