/**
 * Every Redis key name the service uses. All keys of one account carry the
 * account id as their Cluster hash tag, so each script touches one slot.
 * Account and channel ids are limited to A-Z a-z 0-9 _ - . (see schemas/ids.ts),
 * so they can never contain a brace or a colon.
 */

const PREFIX = 'rq';
/** Hash tag of the few service-wide keys; no account id can contain '~'. */
const SYSTEM_TAG = '{~sys}';

export interface AccountKeys {
  account: string;
  channels: string;
  timers: string;
  usage: string;
  events: string;
  tokens: string;
}

export interface ChannelKeys {
  queue: string;
  leases: string;
  messages: string;
  expiry: string;
  dedup: string;
  dedupExpiry: string;
}

export function accountKeys(accountId: string): AccountKeys {
  const base = `${PREFIX}:{${accountId}}`;
  return {
    account: `${base}:account`,
    channels: `${base}:channels`,
    timers: `${base}:timers`,
    usage: `${base}:usage`,
    events: `${base}:events`,
    tokens: `${base}:tokens`,
  };
}

export function channelKeys(accountId: string, channelId: string): ChannelKeys {
  const base = `${PREFIX}:{${accountId}}:c:${channelId}`;
  return {
    queue: `${base}:q`,
    leases: `${base}:f`,
    messages: `${base}:m`,
    expiry: `${base}:x`,
    dedup: `${base}:d`,
    dedupExpiry: `${base}:dx`,
  };
}

/**
 * A channel's history (lua/lib/history.lua; on while its history_seconds setting is): h (hash
 * of records and timelines), hi (zset id -> received_at), he (zset id -> when an ended record
 * goes). Passed to the scripts that store, end or note messages, and read by store/history.ts.
 */
export interface HistoryKeys {
  records: string;
  index: string;
  ends: string;
}

export function historyKeys(accountId: string, channelId: string): HistoryKeys {
  const base = `${PREFIX}:{${accountId}}:c:${channelId}`;
  return { records: `${base}:h`, index: `${base}:hi`, ends: `${base}:he` };
}

/** The three history keys of a channel, in the order the scripts take them. */
export function historyKeyList(accountId: string, channelId: string): string[] {
  const h = historyKeys(accountId, channelId);
  return [h.records, h.index, h.ends];
}

/** A channel's bulk replay jobs (lua/replay_*.lua, src/store/replays.ts). */
export interface ReplayKeys {
  /** hash job id -> job json */
  jobs: string;
  /** zset job id -> created ms: the order jobs run in, one at a time */
  order: string;
  /** string: the pod running the channel's current job (expires unless renewed) */
  lease: string;
}

export function replayKeys(accountId: string, channelId: string): ReplayKeys {
  const base = `${PREFIX}:{${accountId}}:c:${channelId}`;
  return { jobs: `${base}:replays`, order: `${base}:replay_order`, lease: `${base}:replay_lease` };
}

/** list of the compact ids a bulk replay job matched, in the order it replays them */
export function replayIdsKey(accountId: string, channelId: string, jobId: string): string {
  return `${PREFIX}:{${accountId}}:c:${channelId}:replay_ids:${jobId}`;
}

/** SCAN pattern of every channel's history index (the relayq_history_records gauge). */
export const HISTORY_INDEX_PATTERN = `${PREFIX}:{*}:c:*:hi`;

/** The KEYS[1..6] every account-level script takes, in order. */
export function accountKeyList(accountId: string): string[] {
  const k = accountKeys(accountId);
  return [k.account, k.channels, k.timers, k.usage, k.events, k.tokens];
}

/** The six keys of one channel, in the order the scripts take them. */
export function channelKeyList(accountId: string, channelId: string): string[] {
  const c = channelKeys(accountId, channelId);
  return [c.queue, c.leases, c.messages, c.expiry, c.dedup, c.dedupExpiry];
}

export const systemKeys = {
  /** set of every account id */
  accounts: `${PREFIX}:${SYSTEM_TAG}:accounts`,
  /** hash of the service-wide backlog totals (gauges_fold.lua) */
  gauges: `${PREFIX}:${SYSTEM_TAG}:gauges`,
  /** hash account id -> its snapshot last folded into the totals */
  gaugeAccounts: `${PREFIX}:${SYSTEM_TAG}:gauge_accounts`,
  /** zset account id -> send time of its oldest message */
  gaugeOldest: `${PREFIX}:${SYSTEM_TAG}:gauge_oldest`,
  /** zset account id -> the time its next message reaches the end of its retention */
  gaugeExpiry: `${PREFIX}:${SYSTEM_TAG}:gauge_expiry`,
  /** set of '<account> <channel>' that have bulk replay jobs queued or running */
  replays: `${PREFIX}:${SYSTEM_TAG}:replays`,
};

/** A webhook's refusal window counter (lua/webhook_refused.lua), expiring with its second. */
export function webhookRefusalsKey(accountId: string, webhookId: string): string {
  return `${PREFIX}:{${accountId}}:hookrefusals:${webhookId}`;
}

/**
 * An account's webhook endpoints (hash): `<id>` -> record json, `<id>:created`,
 * `<id>:count`, `<id>:last` (ms, 0 before the first), `<id>:refusal` (`<ms>|<reason>` of the
 * last refused delivery, '' before one). Not in accountKeyList: only the webhook scripts and
 * channel_delete take it.
 */
export function webhooksKey(accountId: string): string {
  return `${PREFIX}:{${accountId}}:webhooks`;
}

/**
 * An account's routes (hash, lua/routes_set.lua): `<channel>` -> routes json, `v:<channel>`
 * -> version, `o:<channel>` -> its targets, `i:<target>` -> the channels routing into it.
 */
export function routesKey(accountId: string): string {
  return `${PREFIX}:{${accountId}}:routes`;
}

/**
 * A channel's push destination (src/destinations): the destination hash (id, config json,
 * state, secrets, failure counters, `hol` the head of the line, `a:<uuid>` attempts per
 * message), its attempts log (list, newest first), its rate window (zset of request starts)
 * and the messages it gave up on (zset seq..uuid -> the message's expiry), kept as dead in
 * the channel.
 */
export function destinationKeyList(accountId: string, channelId: string): string[] {
  const base = `${PREFIX}:{${accountId}}:c:${channelId}:dst`;
  return [base, `${base}:log`, `${base}:rate`, `${base}:dead`];
}

/** Set of `<account>/<channel>` that have a destination: what every pod's deliveries walk. */
export const destinationsIndexKey = `${PREFIX}:${SYSTEM_TAG}:destinations`;

/**
 * A channel's tags (hash key -> value: the SQS endpoint's queue tags). Not in channelKeyList:
 * only channel_tags and channel_delete take it.
 */
export function tagsKey(accountId: string, channelId: string): string {
  return `${PREFIX}:{${accountId}}:c:${channelId}:tags`;
}

/**
 * The sweeper's due index is split into partitions, each under its own hash
 * tag (so on its own slot, spread over the cluster's masters). None of them
 * is the truth: each account's timers are, and the repair pass rebuilds them.
 */
export interface DuePartitionKeys {
  /** zset account id -> the earliest time something is due in it */
  due: string;
  /** string: id of the pod that sweeps this partition now (expires) */
  owner: string;
  /** zset pod id -> last time the pod asked for this partition */
  pods: string;
}

export function duePartitionKeys(partition: number): DuePartitionKeys {
  const base = `${PREFIX}:{~due${partition}}`;
  return { due: `${base}:due`, owner: `${base}:owner`, pods: `${base}:pods` };
}

/** The partition of the due index that holds an account (FNV-1a of its id). */
export function duePartitionOf(accountId: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i++) {
    hash ^= accountId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

/** SCAN pattern of every account's timers key (the repair pass walks these). */
export const TIMERS_KEY_PATTERN = `${PREFIX}:{*}:timers`;

/** The account id of a timers key, or null. */
export function accountOfTimersKey(key: string): string | null {
  const match = /^rq:\{([^}~]+)\}:timers$/.exec(key);
  return match ? match[1] : null;
}

/** A token's request counter for its own rate limit (expires with its window). */
export function rateLimitKey(accountId: string, tokenId: string): string {
  return `${PREFIX}:{${accountId}}:rate:${tokenId}`;
}

/** The account's request counter for the plan's rate limit (expires with its window). */
export function accountRateKey(accountId: string): string {
  return `${PREFIX}:{${accountId}}:rate`;
}

/** What an account's concurrent holders hold: open WebSockets or long-poll waits. */
export type HolderKind = 'ws' | 'lp';

/** zset of an account's holders of one kind, scored by the end of each one's lease. */
export function holdersKey(accountId: string, kind: HolderKind): string {
  return `${PREFIX}:{${accountId}}:holders:${kind}`;
}

/** The pattern that matches every key of one account (used by tests and audits). */
export function accountKeyPattern(accountId: string): string {
  return `${PREFIX}:{${accountId}}:*`;
}

/** The account id of an account's events channel name, or null. */
export function accountOfEventsKey(key: string): string | null {
  const match = /^rq:\{([^}]+)\}:events$/.exec(key);
  return match ? match[1] : null;
}

/** The account id of an account's record key (the first key of account scripts), or null. */
export function accountOfAccountKey(key: string): string | null {
  const match = /^rq:\{([^}]+)\}:account$/.exec(key);
  return match ? match[1] : null;
}
