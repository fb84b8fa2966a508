/**
 * Bulk replay jobs (docs/api/history.md, "Replay many"): the matched set is fixed when the
 * job is created (a dry run only counts it), then any pod runs the job, one job per channel at
 * a time, at its rate. Each copy's dedup id is derived from the job and the original, so a
 * pod that dies after storing copies but before recording them leaves no duplicate: the pod
 * that takes the job over stores those copies again and the dedup index answers the first.
 */
import crypto from 'node:crypto';
import { invalidField, RelayError } from '../errors';
import { describeIdRule, isValidId } from '../schemas/ids';
import type { ReplayJob } from '../store/historyTypes';
import type { Caller } from '../types';
import { authorize } from './authorize';
import type { RelayDeps } from './deps';
import { compactOf, createHistory, parseSelection, replayCopy } from './history';

export const DEFAULT_RATE = 100;
export const MAX_RATE = 10_000;
/** The most messages one job matches (its id list is fixed at creation). */
export const MAX_REPLAY_MATCHED = 1_000_000;
const SCAN_BATCH = 1000;

const FIELDS = new Set(['since', 'until', 'status', 'filter', 'to', 'rate_per_second', 'dry_run']);

/** The job as the API shows it. */
export function jobView(job: ReplayJob) {
  return {
    id: job.id,
    state: job.state,
    matched: job.matched,
    replayed: job.replayed,
    started_at: job.started_at,
    finished_at: job.finished_at,
    to: job.to,
    rate_per_second: job.rate_per_second,
  };
}

function jobIdParam(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) {
    throw invalidField('replayId must be a replay job id');
  }
  return value;
}

export function createReplays(deps: RelayDeps) {
  const { store } = deps;
  const history = createHistory(deps);
  const notFound = (id: string) =>
    new RelayError('history_not_found', `replay job ${id} does not exist`);

  return {
    /** POST .../replays: a job (planned for a dry run: counted, nothing replayed). */
    async create(caller: Caller, channel: string, body: Record<string, unknown>) {
      for (const key of Object.keys(body)) {
        if (!FIELDS.has(key)) throw invalidField(`${key} is not a field of a replay job`);
      }
      const selection = parseSelection(body, deps.clock(), true);
      const to = body.to ?? channel;
      if (typeof to !== 'string' || !isValidId(to)) throw invalidField(describeIdRule('to'));
      const rate = body.rate_per_second ?? DEFAULT_RATE;
      if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > MAX_RATE) {
        throw invalidField(`rate_per_second must be a whole number from 1 to ${MAX_RATE}`);
      }
      if (body.dry_run !== undefined && typeof body.dry_run !== 'boolean') {
        throw invalidField('dry_run must be true or false');
      }
      const dryRun = body.dry_run === true;
      const auth = await authorize(deps, caller, channel);
      if (to !== channel) await authorize(deps, { ...caller, count: false }, to);
      // oldest first: the copies arrive in the order the originals did
      const ids: string[] = [];
      let cursor = null;
      for (;;) {
        const { entries, next } = await history.search(
          auth.accountId,
          channel,
          selection,
          cursor,
          SCAN_BATCH,
          'oldest',
          SCAN_BATCH * 4,
        );
        for (const e of entries) ids.push(compactOf(e.id));
        if (ids.length > MAX_REPLAY_MATCHED) {
          throw invalidField(
            `the job matches more than ${MAX_REPLAY_MATCHED} messages; narrow since, until or filter`,
          );
        }
        if (!next) break;
        cursor = next;
      }
      const now = deps.clock();
      const job: ReplayJob = {
        id: crypto.randomUUID(),
        state: dryRun ? 'planned' : 'queued',
        matched: ids.length,
        replayed: 0,
        started_at: null,
        finished_at: null,
        created_at: now,
        to,
        rate_per_second: rate,
        cursor: 0,
      };
      if (!dryRun && ids.length === 0) {
        job.state = 'done';
        job.started_at = now;
        job.finished_at = now;
      }
      await store.replays.create(auth.accountId, channel, job, job.state === 'queued' ? ids : []);
      return jobView(job);
    },

    async get(caller: Caller, channel: string, id: string) {
      const jobId = jobIdParam(id);
      const auth = await authorize(deps, caller, channel);
      const job = await store.replays.get(auth.accountId, channel, jobId);
      if (!job) throw notFound(jobId);
      return jobView(job);
    },

    async cancel(caller: Caller, channel: string, id: string) {
      const jobId = jobIdParam(id);
      const auth = await authorize(deps, caller, channel);
      return jobView(await store.replays.cancel(auth.accountId, channel, jobId));
    },
  };
}

/** The copies' caller: the account itself (a job outlives the token that created it). */
const jobCaller = (account: string): Caller => ({
  accountId: account,
  tokenId: 'replay',
  proof: 'account',
  count: false,
});

/** Copies stored per send call. */
const SEND_CHUNK = 250;

/**
 * Runs the bulk replay jobs on this pod: every tick it claims the current job of each
 * channel that has one (unless another pod's lease holds it) and stores the copies its rate
 * allows since it started, renewing its lease with each step.
 */
export class ReplayRunner {
  readonly podId = crypto.randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly deps: RelayDeps,
    private readonly tickMs = 200,
    private readonly leaseMs = 3000,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** The next tick tickMs after the last one began (at once when it took longer). */
  private schedule(began = Date.now()): void {
    if (this.stopped) return;
    const delay = Math.max(0, this.tickMs - (Date.now() - began));
    this.timer = setTimeout(() => {
      const start = Date.now();
      this.running = this.tick()
        .catch((err: unknown) => this.deps.log.warn({ err: String(err) }, 'replay tick failed'))
        .finally(() => {
          this.running = null;
          this.schedule(start);
        });
    }, delay);
  }

  /** One pass over the channels with jobs (tests call it directly). */
  async tick(): Promise<void> {
    const { store } = this.deps;
    for (const { account, channel } of await store.replays.active()) {
      if (this.stopped) return;
      const job = await store.replays.claim(account, channel, this.podId, this.leaseMs);
      if (job && job !== 'none') await this.step(account, channel, job);
    }
  }

  private async step(account: string, channel: string, job: ReplayJob): Promise<void> {
    const { store } = this.deps;
    const elapsed = Math.max(0, this.deps.clock() - (job.started_at ?? this.deps.clock()));
    // what the rate allows since the job started, less what was passed (one tick's worth at most twice)
    const allowed = Math.floor(((elapsed + this.tickMs) * job.rate_per_second) / 1000) - job.cursor;
    const budget = Math.min(
      Math.max(allowed, 0),
      Math.ceil((job.rate_per_second * this.tickMs * 2) / 1000),
      job.matched - job.cursor,
    );
    // each chunk's state check, ids and records are read while the chunk before it is sent
    const load = (from: number, count: number) => {
      const read = Promise.all([
        store.replays.state(account, channel, job.id),
        store.replays.ids(account, channel, job.id, from, count).then(async (ids) => ({
          ids,
          entries: await store.history.getMany(account, channel, ids),
        })),
      ]);
      // read ahead: left unawaited when the job stops first
      read.catch(() => undefined);
      return { read, count };
    };
    let passed = 0;
    let replayed = 0;
    let next = budget > 0 ? load(job.cursor, Math.min(SEND_CHUNK, budget)) : null;
    while (next) {
      const [state, { ids, entries }] = await next.read;
      if (state !== 'running') break;
      const left = budget - passed - ids.length;
      next =
        ids.length === next.count && left > 0
          ? load(job.cursor + passed + ids.length, Math.min(SEND_CHUNK, left))
          : null;
      const copies = [];
      for (const id of ids) {
        const entry = entries.get(id);
        // a record whose history ended since the job was made is passed without a copy
        if (entry?.message) copies.push(replayCopy(entry, `replay:${job.id}:${id}`));
      }
      if (copies.length > 0) {
        await store.queue.send(jobCaller(account), job.to, copies, { entrance: 'replay' });
        this.deps.metrics.replayed.inc(copies.length);
      }
      passed += ids.length;
      replayed += copies.length;
    }
    const state = await store.replays.progress(
      account,
      channel,
      this.podId,
      job.id,
      passed,
      replayed,
      this.leaseMs,
    );
    if (state === 'done' || state === 'cancelled') {
      await store.replays.claim(account, channel, this.podId, this.leaseMs);
    }
  }
}
