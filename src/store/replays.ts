/**
 * Bulk replay jobs of a channel's history (docs/api/history.md, "Replay many"): the job's
 * state in Redis, the ids it matched (a list fixed at creation, so that every pod replays
 * exactly that set), and the lease of the pod that runs it (lua/replay_*.lua).
 */
import { RelayError } from '../errors';
import type { StoreContext } from './context';
import type { ReplayJob, ReplayState, ReplayStore } from './historyTypes';
import { replayIdsKey, replayKeys, systemKeys } from './keys';
import { scriptFailure } from './storeErrors';

/** How long a finished job stays to be read (GET .../replays/{id}). */
const KEEP_FINISHED_MS = 7 * 86400_000;
const PUSH_CHUNK = 5000;

const replayNotFound = (id: string) =>
  new RelayError('history_not_found', `replay job ${id} does not exist`);

function parseJob(text: string | null): ReplayJob | null {
  return text ? (JSON.parse(text) as ReplayJob) : null;
}

export function createReplayStore(ctx: StoreContext): ReplayStore {
  const redis = ctx.redis;
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
          await redis.rpush(list, ...ids.slice(i, i + PUSH_CHUNK));
        }
        await redis.pexpire(list, KEEP_FINISHED_MS);
      }
      const tx = redis.multi().hset(keys.jobs, job.id, JSON.stringify(job));
      if (job.state !== 'planned') tx.zadd(keys.order, job.created_at, job.id);
      await tx.exec();
      if (job.state !== 'planned') await redis.sadd(systemKeys.replays, `${account} ${channel}`);
    },

    async get(account: string, channel: string, id: string): Promise<ReplayJob | null> {
      return parseJob(await redis.hget(replayKeys(account, channel).jobs, id));
    },

    async cancel(account: string, channel: string, id: string): Promise<ReplayJob> {
      try {
        const text = await ctx.call<string>(
          'replay_cancel',
          [replayKeys(account, channel).jobs],
          [id],
        );
        return parseJob(text)!;
      } catch (err) {
        if (scriptFailure(err)?.code === 'REPLAY_NOT_FOUND') throw replayNotFound(id);
        throw err;
      }
    },

    /** The channels that have jobs to run: '<account> <channel>' each. */
    async active(): Promise<{ account: string; channel: string }[]> {
      const members = await redis.smembers(systemKeys.replays);
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
      const keys = replayKeys(account, channel);
      const reply = await ctx.call<string | [null] | null>(
        'replay_claim',
        [keys.jobs, keys.order, keys.lease],
        [pod, leaseMs],
      );
      if (Array.isArray(reply)) {
        await redis.srem(systemKeys.replays, `${account} ${channel}`);
        return 'none';
      }
      return parseJob(reply);
    },

    /** The next ids of a job from its cursor. */
    async ids(account: string, channel: string, id: string, from: number, count: number) {
      return redis.lrange(replayIdsKey(account, channel, id), from, from + count - 1);
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
      const keys = replayKeys(account, channel);
      return ctx.call<ReplayState | 'lost'>(
        'replay_progress',
        [keys.jobs, keys.lease],
        [pod, id, passed, replayed, leaseMs],
      );
    },

    /** The state alone (checked before each copy, so that a cancel stops the copies). */
    async state(account: string, channel: string, id: string): Promise<ReplayState | null> {
      return parseJob(await redis.hget(replayKeys(account, channel).jobs, id))?.state ?? null;
    },

    /** Whether a job of the channel is queued or running (a new one then waits). */
    async busy(account: string, channel: string): Promise<boolean> {
      return (await redis.zcard(replayKeys(account, channel).order)) > 0;
    },
  };
}
