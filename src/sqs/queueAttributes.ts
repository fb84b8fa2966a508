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
import { parseQueueArn, queueArn } from './queueUrl';
import { checkQueueScope } from './resolve';
import { queueDefaults } from './settings';

export const MAX_MESSAGE_BYTES = LIMITS.maxMessageBytes;
const MIN_RETENTION_SECONDS = 60;

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
] as const;

/** SQS attributes of features relayq does not have: UnsupportedOperation, not an unknown name. */
const UNSUPPORTED = new Set([
  'Policy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'RedriveAllowPolicy',
  'LastModifiedTimestamp',
]);

export interface QueueChange {
  visibilityTimeoutMs?: number;
  delaySeconds?: number;
  retentionSeconds?: number;
  receiveWaitSeconds?: number;
  maxAttempts?: number;
  /** null removes the dead-letter queue */
  deadLetterChannel?: string | null;
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
      case 'MaximumMessageSize':
        whole(name, value, MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES, ': relayq has a fixed limit');
        break;
      case 'RedrivePolicy':
        Object.assign(change, await parseRedrivePolicy(value, channel, call, auth));
        break;
      case 'FifoQueue':
        if (value !== 'false')
          throw new SqsError('UnsupportedOperation', 'FIFO queues are not supported by relayq.');
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
  if (names.includes('All')) return [...READABLE];
  for (const name of names) {
    if (!(READABLE as readonly string[]).includes(name)) {
      if (UNSUPPORTED.has(name) || name === 'FifoQueue') continue;
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
    MaximumMessageSize: String(MAX_MESSAGE_BYTES),
    RedrivePolicy:
      dlq === null
        ? undefined
        : JSON.stringify({
            deadLetterTargetArn: queueArn(region, accountId, dlq),
            maxReceiveCount: stats.config.max_attempts,
          }),
  };
}
