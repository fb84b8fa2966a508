/**
 * Queue attributes as channel settings: what GetQueueAttributes reports and
 * what CreateQueue / SetQueueAttributes may change.
 */
import { LIMITS } from '../schemas/requests';
import type { AuthContext, ChannelStats } from '../relay';
import type { PlanLimits } from '../types';
import type { SqsCall } from './context';
import { SqsError, invalidParameter } from './errors';
import { MAX_DELAY_SECONDS, MAX_VISIBILITY_SECONDS } from './messages';
import { isAll } from './names';
import { parseQueueArn, queueArn } from './queueUrl';
import { checkQueueScope } from './resolve';
import { NAMED_SETTINGS, maxMessageSize, queueDefaults } from './settings';
import {
  FIFO_SETTINGS,
  checkFifoValue,
  fifoAttribute,
  isFifoAttribute,
  isFifoConfig,
} from './fifo';

/** SQS's smallest MaximumMessageSize */
const MIN_MESSAGE_BYTES = 1024;
const MIN_RETENTION_SECONDS = 60;
/** SQS's default KmsDataKeyReusePeriodSeconds, reported while a KMS key is set */
const DEFAULT_KMS_REUSE_SECONDS = 300;

/** What GetQueueAttributes knows, in the order of All. */
export const READABLE = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'QueueArn',
  'VisibilityTimeout',
  'DelaySeconds',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'MaximumMessageSize',
  'RedrivePolicy',
  'SqsManagedSseEnabled',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

/** SQS attributes of features relayq does not have: UnsupportedOperation, not an unknown name. */
const UNSUPPORTED = new Set(['Policy', 'RedriveAllowPolicy', 'LastModifiedTimestamp']);

export interface QueueChange {
  visibilityTimeoutMs?: number;
  delaySeconds?: number;
  retentionSeconds?: number;
  receiveWaitSeconds?: number;
  maxAttempts?: number;
  /** null removes the dead-letter queue */
  deadLetterChannel?: string | null;
  /** the SQS endpoint's named channel settings (settings.ts): a value sets, null removes */
  named?: Record<string, string | null>;
  /** FifoQueue as given (CreateQueue checks it against the name) */
  fifo?: boolean;
}

function unsupported(name: string): SqsError {
  return new SqsError(
    'UnsupportedOperation',
    `Queue attribute ${name} is not supported by relayq.`,
  );
}

function whole(name: string, value: string, min: number, max: number, why = ''): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new SqsError(
      'InvalidAttributeValue',
      `Invalid value for the parameter ${name}: ${JSON.stringify(value)} must be a whole number from ${min} to ${max}${why}.`,
    );
  }
  return n;
}

interface RedrivePolicy {
  deadLetterChannel: string | null;
  maxAttempts: number;
}

async function parseRedrivePolicy(
  value: string,
  channel: string,
  call: SqsCall,
  auth: AuthContext,
): Promise<RedrivePolicy> {
  // an empty policy removes redrive: SQS then keeps redelivering; relayq's most is max_attempts 100
  if (value.trim() === '' || value.trim() === '{}') {
    return { deadLetterChannel: null, maxAttempts: LIMITS.maxAttempts };
  }
  const reason = (why: string) =>
    invalidParameter(`Value ${value} for parameter RedrivePolicy is invalid. Reason: ${why}`);
  let policy: { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
  try {
    policy = JSON.parse(value) as typeof policy;
  } catch {
    throw reason('Redrive policy is not a valid JSON map.');
  }
  if (typeof policy !== 'object' || policy === null) throw reason('it must be a JSON map.');
  const arn = typeof policy.deadLetterTargetArn === 'string' ? policy.deadLetterTargetArn : '';
  const target = parseQueueArn(arn);
  if (!target) throw reason('Invalid value for deadLetterTargetArn.');
  if (target.accountId !== auth.accountId) {
    throw reason('Dead-letter target must be a queue of the same account.');
  }
  if (target.channel === channel) throw reason('Dead-letter target must be another queue.');
  checkQueueScope(auth, target.channel);
  const count = Number(policy.maxReceiveCount);
  if (!Number.isInteger(count) || count < 1 || count > LIMITS.maxAttempts) {
    throw reason(`maxReceiveCount must be a whole number from 1 to ${LIMITS.maxAttempts}.`);
  }
  if (!(await call.relay.channels.stats(auth, target.channel))) {
    throw reason('Dead letter target does not exist.');
  }
  return { deadLetterChannel: target.channel, maxAttempts: count };
}

function setNamed(
  change: QueueChange,
  attribute: keyof typeof NAMED_SETTINGS,
  value: string | null,
): void {
  change.named = { ...change.named, [NAMED_SETTINGS[attribute]]: value };
}

/** The change a Create/SetQueueAttributes Attributes map asks for. */
export async function parseQueueAttributes(
  attributes: Record<string, string>,
  channel: string,
  call: SqsCall,
  auth: AuthContext,
): Promise<QueueChange> {
  const change: QueueChange = {};
  const retention = auth.limits.retention_seconds;
  for (const [name, value] of Object.entries(attributes)) {
    switch (name) {
      case 'VisibilityTimeout':
        change.visibilityTimeoutMs = whole(name, value, 0, MAX_VISIBILITY_SECONDS) * 1000;
        break;
      case 'DelaySeconds':
        change.delaySeconds = whole(name, value, 0, MAX_DELAY_SECONDS);
        break;
      case 'MessageRetentionPeriod':
        change.retentionSeconds = whole(
          name,
          value,
          MIN_RETENTION_SECONDS,
          retention,
          " (the plan's retention)",
        );
        break;
      case 'ReceiveMessageWaitTimeSeconds':
        change.receiveWaitSeconds = whole(name, value, 0, 20);
        break;
      case 'MaximumMessageSize': {
        const max = auth.limits.max_sqs_message_bytes;
        const bytes = whole(
          name,
          value,
          MIN_MESSAGE_BYTES,
          max,
          " (the plan's max_sqs_message_bytes)",
        );
        setNamed(change, name, String(bytes));
        break;
      }
      case 'SqsManagedSseEnabled':
        if (!/^(true|false)$/i.test(value)) {
          throw new SqsError(
            'InvalidAttributeValue',
            `Invalid value for the parameter ${name}: ${JSON.stringify(value)} must be true or false.`,
          );
        }
        setNamed(change, name, value.toLowerCase());
        break;
      case 'KmsMasterKeyId':
        if (value.length > 2048 || /[|\p{Cc}]/u.test(value)) {
          throw new SqsError(
            'InvalidAttributeValue',
            `Invalid value for the parameter ${name}: at most 2048 characters, without '|' or control characters.`,
          );
        }
        // an empty key id turns SSE-KMS off, as in SQS
        setNamed(change, name, value === '' ? null : value);
        break;
      case 'KmsDataKeyReusePeriodSeconds':
        setNamed(change, name, String(whole(name, value, 60, 86_400)));
        break;
      case 'RedrivePolicy':
        Object.assign(change, await parseRedrivePolicy(value, channel, call, auth));
        break;
      case 'FifoQueue':
        if (!/^(true|false)$/i.test(value)) {
          throw new SqsError(
            'InvalidAttributeValue',
            `Invalid value for the parameter ${name}: ${JSON.stringify(value)} must be true or false.`,
          );
        }
        change.fifo = value.toLowerCase() === 'true';
        break;
      case 'ContentBasedDeduplication':
      case 'DeduplicationScope':
      case 'FifoThroughputLimit':
        change.named = { ...change.named, [FIFO_SETTINGS[name]]: checkFifoValue(name, value) };
        break;
      default:
        if (UNSUPPORTED.has(name)) throw unsupported(name);
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
    }
  }
  return change;
}

/** The names GetQueueAttributes was asked for (All expands), checked. */
export function readableNames(names: string[]): (typeof READABLE)[number][] {
  if (names.some(isAll)) return [...READABLE];
  for (const name of names) {
    if (!(READABLE as readonly string[]).includes(name)) {
      if (UNSUPPORTED.has(name)) continue;
      throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
    }
  }
  return names.filter((n): n is (typeof READABLE)[number] =>
    (READABLE as readonly string[]).includes(n),
  );
}

/** The channel's attributes under SQS names. */
export function describeQueue(
  stats: ChannelStats,
  limits: PlanLimits,
  region: string,
  accountId: string,
): Record<(typeof READABLE)[number], string | undefined> {
  const defaults = queueDefaults(stats, limits);
  const dlq = stats.config.dead_letter_channel;
  const { named } = stats.config;
  const kmsKey = named[NAMED_SETTINGS.KmsMasterKeyId];
  return {
    ApproximateNumberOfMessages: String(stats.queued),
    ApproximateNumberOfMessagesNotVisible: String(stats.in_flight),
    ApproximateNumberOfMessagesDelayed: String(stats.delayed),
    CreatedTimestamp: String(Math.floor(stats.created_ms / 1000)),
    QueueArn: queueArn(region, accountId, stats.id),
    VisibilityTimeout: String(Math.round(defaults.visibilityTimeoutMs / 1000)),
    DelaySeconds: String(defaults.delaySeconds),
    MessageRetentionPeriod: String(defaults.retentionSeconds),
    ReceiveMessageWaitTimeSeconds: String(defaults.receiveWaitSeconds),
    MaximumMessageSize: String(maxMessageSize(stats.config, limits)),
    RedrivePolicy:
      dlq === null
        ? undefined
        : JSON.stringify({
            deadLetterTargetArn: queueArn(region, accountId, dlq),
            maxReceiveCount: stats.config.max_attempts,
          }),
    // stored and reported only: relayq encrypts nothing with them (docs/sqs.md)
    SqsManagedSseEnabled: named[NAMED_SETTINGS.SqsManagedSseEnabled] ?? 'false',
    KmsMasterKeyId: kmsKey,
    KmsDataKeyReusePeriodSeconds:
      named[NAMED_SETTINGS.KmsDataKeyReusePeriodSeconds] ??
      (kmsKey === undefined ? undefined : String(DEFAULT_KMS_REUSE_SECONDS)),
    // a standard queue reports none of the FIFO attributes, as in SQS
    ...(isFifoConfig(stats.config)
      ? {
          FifoQueue: 'true',
          ContentBasedDeduplication: fifoAttribute(stats.config, 'ContentBasedDeduplication'),
          DeduplicationScope: fifoAttribute(stats.config, 'DeduplicationScope'),
          FifoThroughputLimit: fifoAttribute(stats.config, 'FifoThroughputLimit'),
        }
      : {
          FifoQueue: undefined,
          ContentBasedDeduplication: undefined,
          DeduplicationScope: undefined,
          FifoThroughputLimit: undefined,
        }),
  };
}

/** An attribute value as describeQueue reports it, to compare a CreateQueue of an existing queue. */
export function reportedValue(name: string, value: string): string {
  if (name === 'SqsManagedSseEnabled' || name === 'FifoQueue') return value.toLowerCase();
  if (isFifoAttribute(name)) return checkFifoValue(name, value);
  if (name === 'KmsMasterKeyId') return value;
  return String(Number(value));
}
