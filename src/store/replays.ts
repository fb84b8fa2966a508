/**
 * Bulk replay jobs of a channel's history (docs/api/history.md, "Replay many"): the job's
 * state in Redis, the ids it matched (a list fixed at creation, so that every pod replays
 * exactly that set), and the lease of the pod that runs it (lua/replay_*.lua).
 */
import type { StoreContext } from './context';
import type { ReplayJob, ReplayState, ReplayStore } from './historyTypes';
import { replayIdsKey, replayKeys, systemKeys } from './keys';
import {
  replayCancelScript,
  replayClaimScript,
  replayProgressScript,
  type ReplayCancelArgs,
  type ReplayClaimArgs,
  type ReplayClaimReply,
  type ReplayProgressArgs,
} from './scripts/replays';

/** How long a finished job stays to be read (GET .../replays/{id}). */
const KEEP_FINISHED_MS = 7 * 86400_000;
const PUSH_CHUNK = 5000;

function parseJob(text: string | null): ReplayJob | null {
  return text ? (JSON.parse(text) as ReplayJob) : null;
}

export function createReplayStore(ctx: StoreContext): ReplayStore {
  return {
    /**
     * Stores a job: planned (a dry run, which blocks nothing) or queued with the ids it
     * replays, in order (compact ids of the channel's history).
     */
    async create(account: string, channel: string, job: ReplayJob, ids: string[]) {
      const keys = replayKeys(account, channel);
      if (job.state !== 'planned') {
        const list = replayIdsKey(account, channel, job.id);
        for (let i = 0; i < ids.length; i += PUSH_CHUNK) {
          const chunk = ids.slice(i, i + PUSH_CHUNK);
          await ctx.command((redis) => redis.rpush(list, ...chunk));
        }
        await ctx.command((redis) => redis.pexpire(list, KEEP_FINISHED_MS));
      }
      await ctx.command((redis) => {
        const tx = redis.multi().hset(keys.jobs, job.id, JSON.stringify(job));
        if (job.state !== 'planned') tx.zadd(keys.order, job.created_at, job.id);
        return tx.exec();
      });
      if (job.state !== 'planned') {
        await ctx.command((redis) => redis.sadd(systemKeys.replays, `${account} ${channel}`));
      }
    },

    async get(account: string, channel: string, id: string): Promise<ReplayJob | null> {
      const jobs = replayKeys(account, channel).jobs;
      return parseJob(await ctx.command((redis) => redis.hget(jobs, id)));
    },

    async cancel(account: string, channel: string, id: string): Promise<ReplayJob> {
      const text = await ctx.run<string, ReplayCancelArgs>(
        replayCancelScript,
        { account, channel, id },
        { job_id: id },
      );
      return parseJob(text)!;
    },

    /** The channels that have jobs to run: '<account> <channel>' each. */
    async active(): Promise<{ account: string; channel: string }[]> {
      const members = await ctx.command((redis) => redis.smembers(systemKeys.replays));
      return members.map((m) => {
        const [account, channel] = m.split(' ');
        return { account, channel };
      });
    },

    /**
     * The channel's job this pod is to run now (its lease taken or renewed), 'none' when
     * the channel has no job left (it leaves the active set), or null when another pod runs it.
     */
    async claim(
      account: string,
      channel: string,
      pod: string,
      leaseMs: number,
    ): Promise<ReplayJob | 'none' | null> {
      const reply = await ctx.run<ReplayClaimReply, ReplayClaimArgs>(
        replayClaimScript,
        { account, channel },
        { pod, lease_ms: leaseMs },
      );
      if (Array.isArray(reply)) {
        await ctx.command((redis) => redis.srem(systemKeys.replays, `${account} ${channel}`));
        return 'none';
      }
      return parseJob(reply);
    },

    /** The next ids of a job from its cursor. */
    async ids(account: string, channel: string, id: string, from: number, count: number) {
      const list = replayIdsKey(account, channel, id);
      return ctx.command((redis) => redis.lrange(list, from, from + count - 1));
    },

    /** Records a step; answers the job's state after it ('lost': another pod runs it). */
    async progress(
      account: string,
      channel: string,
      pod: string,
      id: string,
      passed: number,
      replayed: number,
      leaseMs: number,
    ): Promise<ReplayState | 'lost'> {
      return ctx.run<ReplayState | 'lost', ReplayProgressArgs>(
        replayProgressScript,
        { account, channel },
        { pod, job_id: id, passed, replayed, lease_ms: leaseMs },
      );
    },

    /** The state alone (checked before each copy, so that a cancel stops the copies). */
    async state(account: string, channel: string, id: string): Promise<ReplayState | null> {
      const jobs = replayKeys(account, channel).jobs;
      return parseJob(await ctx.command((redis) => redis.hget(jobs, id)))?.state ?? null;
    },

    /** Whether a job of the channel is queued or running (a new one then waits). */
    async busy(account: string, channel: string): Promise<boolean> {
      const order = replayKeys(account, channel).order;
      return (await ctx.command((redis) => redis.zcard(order))) > 0;
    },
  };
}
