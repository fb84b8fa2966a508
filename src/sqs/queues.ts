/** The queue actions: create, find, list, delete, purge, and queue attributes. */
import type { AuthContext } from '../relay';
import { LIMITS } from '../schemas/requests';
import type { SqsCall } from './context';
import { SqsError, invalidParameter, missingParameter } from './errors';
import {
  optionalInteger,
  optionalString,
  optionalStringList,
  optionalStringMap,
  requiredString,
} from './params';
import {
  describeQueue,
  parseQueueAttributes,
  readableNames,
  reportedValue,
  type QueueChange,
} from './queueAttributes';
import { queueUrl } from './queueUrl';
import {
  checkQueueName,
  checkQueueScope,
  queueDoesNotExist,
  resolveQueue,
  type Queue,
} from './resolve';
import { requestedTags, tagNewQueue } from './tags';
import { FIFO_SUFFIX, forgetFifo, isFifoAttribute, isFifoConfig } from './fifo';

const MAX_LIST = 1000;

async function applyChange(
  call: SqsCall,
  auth: AuthContext,
  channel: string,
  change: QueueChange,
): Promise<void> {
  await call.relay.channels.configure(auth, channel, {
    maxAttempts: change.maxAttempts,
    deadLetterChannel: change.deadLetterChannel,
    visibilityTimeoutMs: change.visibilityTimeoutMs,
    delaySeconds: change.delaySeconds,
    retentionSeconds: change.retentionSeconds,
    receiveWaitSeconds: change.receiveWaitSeconds,
    named: change.named,
  });
  forgetFifo(call.relay, call.accountId, channel);
}

/**
 * FifoQueue against the queue (its name for a new one) and FIFO attributes only on a FIFO queue,
 * as SQS checks them.
 */
function checkFifo(attributes: Record<string, string>, change: QueueChange, fifo: boolean): void {
  if (change.fifo !== undefined && change.fifo !== fifo) {
    throw invalidParameter(
      fifo
        ? 'The FifoQueue attribute of a queue whose name ends in .fifo must be true.'
        : 'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.',
    );
  }
  const fifoOnly = Object.keys(attributes).find(isFifoAttribute);
  if (!fifo && fifoOnly !== undefined) {
    throw new SqsError('InvalidAttributeName', `Unknown Attribute ${fifoOnly}.`);
  }
}

function attributesOf(call: SqsCall, auth: AuthContext, queue: Queue) {
  return describeQueue(queue.stats, auth.limits, call.region, auth.accountId);
}

export async function createQueue(call: SqsCall) {
  const name = requiredString(call.input, 'QueueName');
  checkQueueName(name);
  const auth = await call.auth();
  checkQueueScope(auth, name);
  const tags = requestedTags(call.input, 'tags');
  const attributes = optionalStringMap(call.input, 'Attributes') ?? {};
  const change = await parseQueueAttributes(attributes, name, call, auth);
  const fifo = name.endsWith(FIFO_SUFFIX);
  if (fifo && change.fifo !== true) {
    throw invalidParameter(
      'The FifoQueue attribute must be true for a queue whose name ends in .fifo.',
    );
  }
  checkFifo(attributes, change, fifo);
  const url = queueUrl(call.baseUrl, auth.accountId, name);
  const stats = await call.relay.channels.stats(auth, name);
  if (stats) {
    // idempotent: the same name and attributes answer the same URL; other attributes are a conflict
    const current = attributesOf(call, auth, { channel: name, stats });
    for (const attribute of Object.keys(attributes)) {
      const same =
        attribute === 'RedrivePolicy'
          ? change.deadLetterChannel === stats.config.dead_letter_channel &&
            (change.deadLetterChannel === null || change.maxAttempts === stats.config.max_attempts)
          : !(attribute in current) ||
            (current[attribute as keyof typeof current] ??
              (attribute === 'FifoQueue' ? 'false' : '')) ===
              reportedValue(attribute, attributes[attribute]);
      if (!same) {
        throw new SqsError(
          'QueueNameExists',
          `A queue already exists with the same name and a different value for attribute ${attribute}.`,
        );
      }
    }
    // an existing queue keeps its tags (CreateQueue does not change them)
    return { QueueUrl: url };
  }
  // SQS redelivers without limit when there is no redrive policy; relayq's most is 100
  // a FIFO queue is a FIFO channel; a standard one gives groups fair turns (SQS fair queues)
  const named = { ...change.named, ...(fifo ? { fifo: '1' } : { group_order: 'fair' }) };
  await applyChange(call, auth, name, { maxAttempts: LIMITS.maxAttempts, ...change, named });
  if (tags) await tagNewQueue(call, auth, name, tags);
  return { QueueUrl: url };
}

export async function getQueueUrl(call: SqsCall) {
  const name = requiredString(call.input, 'QueueName');
  const owner = optionalString(call.input, 'QueueOwnerAWSAccountId');
  if (owner !== undefined && owner !== call.accountId) {
    throw new SqsError('AccessDenied', `Access to queues of account ${owner} is denied.`);
  }
  checkQueueName(name);
  const auth = await call.auth();
  checkQueueScope(auth, name);
  if (!(await call.relay.channels.stats(auth, name))) throw queueDoesNotExist(name);
  return { QueueUrl: queueUrl(call.baseUrl, auth.accountId, name) };
}

export async function listQueues(call: SqsCall) {
  const prefix = optionalString(call.input, 'QueueNamePrefix') ?? '';
  const max = optionalInteger(call.input, 'MaxResults', 1, MAX_LIST);
  const next = optionalString(call.input, 'NextToken');
  let after = '';
  if (next !== undefined) {
    after = Buffer.from(next, 'base64url').toString('utf8');
    if (!after.startsWith('after:')) throw invalidParameter('Invalid NextToken value.');
    after = after.slice('after:'.length);
  }
  const auth = await call.auth();
  const names = (await call.relay.channels.list(auth))
    .map((c) => c.id)
    .filter((id) => id.startsWith(prefix) && (after === '' || id > after));
  const page = names.slice(0, max ?? MAX_LIST);
  const more = max !== undefined && names.length > page.length;
  return {
    ...(page.length > 0
      ? { QueueUrls: page.map((id) => queueUrl(call.baseUrl, auth.accountId, id)) }
      : {}),
    ...(more
      ? { NextToken: Buffer.from(`after:${page[page.length - 1]}`).toString('base64url') }
      : {}),
  };
}

export async function deleteQueue(call: SqsCall) {
  const queue = await resolveQueue(call);
  await call.relay.channels.remove(await call.auth(), queue.channel);
  forgetFifo(call.relay, call.accountId, queue.channel);
  return {};
}

export async function purgeQueue(call: SqsCall) {
  const queue = await resolveQueue(call);
  await call.relay.channels.purge(await call.auth(), queue.channel);
  return {};
}

export async function getQueueAttributes(call: SqsCall) {
  const queue = await resolveQueue(call);
  const names = readableNames(optionalStringList(call.input, 'AttributeNames') ?? []);
  const all = attributesOf(call, await call.auth(), queue);
  const Attributes: Record<string, string> = {};
  for (const name of names) {
    const value = all[name];
    if (value !== undefined) Attributes[name] = value;
  }
  return Object.keys(Attributes).length > 0 ? { Attributes } : {};
}

export async function setQueueAttributes(call: SqsCall) {
  const queue = await resolveQueue(call);
  const attributes = optionalStringMap(call.input, 'Attributes');
  if (attributes === undefined) throw missingParameter('Attributes');
  const auth = await call.auth();
  const change = await parseQueueAttributes(attributes, queue.channel, call, auth);
  checkFifo(attributes, change, isFifoConfig(queue.stats.config));
  await applyChange(call, auth, queue.channel, change);
  return {};
}

export async function listDeadLetterSourceQueues(call: SqsCall) {
  const queue = await resolveQueue(call);
  const auth = await call.auth();
  const sources = (await call.relay.channels.list(auth)).filter(
    (c) => c.config.dead_letter_channel === queue.channel,
  );
  return { queueUrls: sources.map((c) => queueUrl(call.baseUrl, auth.accountId, c.id)) };
}
