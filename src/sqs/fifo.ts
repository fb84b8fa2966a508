/**
 * SQS FIFO queues and message groups over the relay's message groups (docs/api/groups.md,
 * docs/sqs.md), for every protocol alike: a FIFO queue is a channel with `fifo: true` (its name
 * ends in .fifo, as SQS requires); a standard queue made here orders groups fairly
 * (group_order fair, as SQS fair queues); MessageGroupId is the message's group_id.
 */
import crypto from 'node:crypto';
import type { ChannelConfig, ChannelStats, Relay } from '../relay';
import { GROUP_ID_PATTERN } from '../schemas/requests';
import type { SqsCall } from './context';
import { SqsError, invalidParameter, missingParameter } from './errors';
import { optionalString, type Input } from './params';
import { queueDoesNotExist, checkQueueScope } from './resolve';

export const FIFO_SUFFIX = '.fifo';

/** The named channel settings of the FIFO attributes (stored and reported as given). */
export const FIFO_SETTINGS = {
  ContentBasedDeduplication: 'sqs_cbd',
  DeduplicationScope: 'sqs_dedup_scope',
  FifoThroughputLimit: 'sqs_fifo_limit',
} as const;

export type FifoAttribute = keyof typeof FIFO_SETTINGS;

/** Each FIFO attribute's values, the first its default. */
export const FIFO_VALUES: Record<FifoAttribute, readonly string[]> = {
  ContentBasedDeduplication: ['false', 'true'],
  DeduplicationScope: ['queue', 'messageGroup'],
  FifoThroughputLimit: ['perQueue', 'perMessageGroupId'],
};

export const isFifoAttribute = (name: string): name is FifoAttribute => name in FIFO_SETTINGS;

/** A FIFO queue's settings as its sends need them (null: a standard queue). */
export interface FifoQueue {
  contentBasedDeduplication: boolean;
  /** dedup ids count per message group */
  perGroup: boolean;
}

export const isFifoConfig = (config: ChannelConfig): boolean => config.named.fifo === '1';

export function fifoQueue(stats: ChannelStats): FifoQueue | null {
  if (!isFifoConfig(stats.config)) return null;
  const { named } = stats.config;
  return {
    contentBasedDeduplication: named[FIFO_SETTINGS.ContentBasedDeduplication] === 'true',
    perGroup: named[FIFO_SETTINGS.DeduplicationScope] === 'messageGroup',
  };
}

/** A FIFO attribute's value as reported (its default when never set). */
export function fifoAttribute(config: ChannelConfig, name: FifoAttribute): string {
  return config.named[FIFO_SETTINGS[name]] ?? FIFO_VALUES[name][0];
}

/** A FIFO attribute's value checked (InvalidAttributeValue), as stored. */
export function checkFifoValue(name: FifoAttribute, value: string): string {
  const allowed = FIFO_VALUES[name];
  const found = allowed.find((v) => v.toLowerCase() === value.toLowerCase());
  if (found === undefined) {
    throw new SqsError(
      'InvalidAttributeValue',
      `Invalid value for the parameter ${name}: ${JSON.stringify(value)} must be ${allowed.join(' or ')}.`,
    );
  }
  return found;
}

/**
 * How long a pod keeps a queue's FIFO settings for its sends: a change made through another
 * pod reaches its sends within this (SQS's own attribute changes take up to 60 s to
 * propagate); a change through this pod at once.
 */
export const FIFO_MEMORY_MS = 5000;
const FIFO_MEMORY_MAX = 10_000;

/** Per relay (one per app): `${account}\0${channel}` -> the settings and until when. */
const memories = new WeakMap<Relay, Map<string, { fifo: FifoQueue | null; until: number }>>();

function memoryOf(relay: Relay) {
  let memory = memories.get(relay);
  if (!memory) {
    memory = new Map();
    memories.set(relay, memory);
  }
  return memory;
}

/** Forgets a queue's FIFO settings on this pod (they were changed, or it was deleted). */
export function forgetFifo(relay: Relay, accountId: string, channel: string): void {
  memories.get(relay)?.delete(`${accountId}\u0000${channel}`);
}

/**
 * The FIFO settings of the queue a send goes to: only a queue whose name ends in .fifo can be
 * one, so a standard queue's send makes no extra call; a FIFO queue's after its first on this
 * pod neither, for FIFO_MEMORY_MS (the send's own call checks the token's scope and that the
 * queue exists).
 */
export async function sendTarget(call: SqsCall, channel: string): Promise<FifoQueue | null> {
  if (!channel.endsWith(FIFO_SUFFIX)) return null;
  const memory = memoryOf(call.relay);
  const key = `${call.accountId}\u0000${channel}`;
  const known = memory.get(key);
  if (known && known.until > Date.now()) return known.fifo;
  const auth = await call.auth();
  checkQueueScope(auth, channel);
  const stats = await call.relay.channels.stats(auth, channel);
  if (!stats) throw queueDoesNotExist(channel);
  const fifo = fifoQueue(stats);
  if (memory.size >= FIFO_MEMORY_MAX) memory.clear();
  memory.set(key, { fifo, until: Date.now() + FIFO_MEMORY_MS });
  return fifo;
}

/** What a send entry adds for groups and FIFO: the relay message's group and dedup id. */
export interface GroupedSend {
  groupId?: string;
  /** the dedup id the relay keys on (per group under DeduplicationScope messageGroup) */
  dedupKey?: string;
  /** MessageDeduplicationId as given or made (ReceiveMessage returns it) */
  dedupId?: string;
}

/**
 * MessageGroupId and MessageDeduplicationId of one entry: required (or made from the body) on a
 * FIFO queue, where a per-message DelaySeconds is refused; a group on a standard queue gives
 * fair turns.
 */
export function groupedSend(entry: Input, body: string, fifo: FifoQueue | null): GroupedSend {
  const groupId = optionalString(entry, 'MessageGroupId');
  if (groupId !== undefined && !GROUP_ID_PATTERN.test(groupId)) {
    throw invalidParameter(
      `Value ${groupId} for parameter MessageGroupId is invalid. Reason: it must be 1 to 128 characters of A-Z a-z 0-9 _ . : / = + @ - (relayq's group ids).`,
    );
  }
  const given = optionalString(entry, 'MessageDeduplicationId');
  if (!fifo) return { groupId, dedupKey: given, dedupId: given };
  if (groupId === undefined) throw missingParameter('MessageGroupId');
  if (entry.DelaySeconds !== undefined) {
    throw invalidParameter(
      `Value ${String(entry.DelaySeconds)} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
    );
  }
  let dedupId = given;
  if (dedupId === undefined) {
    if (!fifo.contentBasedDeduplication) {
      throw invalidParameter(
        'The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    }
    dedupId = crypto.createHash('sha256').update(body, 'utf8').digest('hex');
  }
  // group ids have no '|': the key of one group's dedup id cannot be another's
  return { groupId, dedupId, dedupKey: fifo.perGroup ? `${groupId}|${dedupId}` : dedupId };
}
