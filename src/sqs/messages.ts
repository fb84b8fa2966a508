/** SendMessage, ReceiveMessage, DeleteMessage, ChangeMessageVisibility, over the relay's queue operations. */
import { newMessage, type NewMessage } from '../relay';
import type { SqsCall } from './context';
import { SqsError, invalidParameter, missingParameter, toSqsError } from './errors';
import { md5Hex, md5OfMessageAttributes } from './md5';
import {
  METADATA_FIELD,
  attributesFromMetadata,
  selectAttributes,
  validateMessageAttributes,
} from './messageAttributes';
import {
  optionalInteger,
  optionalMap,
  optionalString,
  optionalStringList,
  requiredInteger,
  requiredString,
  type Input,
} from './params';
import { MAX_SQS_MESSAGE_BYTES, messageTooLong, sqsMessageSize } from './messageSize';
import { isAll } from './names';
import { queueArn } from './queueUrl';
import { onQueue, parametersOn, queueChannel } from './resolve';
import { sqsSizeCap } from './settings';
import { groupedSend, sendTarget, type FifoQueue } from './fifo';

/** The metadata field of a message's MessageDeduplicationId (ReceiveMessage returns it). */
export const DEDUP_FIELD = 'sqs_dedup_id';

export const MAX_DELAY_SECONDS = 900;
export const MAX_VISIBILITY_SECONDS = 43_200;
const MAX_RECEIVE = 10;
const MAX_WAIT_SECONDS = 20;
/** XML 1.0's characters, which SQS allows in a message body */
const BODY_CHARS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
/** 12 hex digits of sequence and a 22-character nonce: the relay's lease id */
const RECEIPT_HANDLE = /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/;

export interface PreparedSend {
  message: NewMessage;
  /** as SQS counts it (messageSize.ts) */
  sqsSize: number;
  md5Body: string;
  md5Attributes?: string;
}

/**
 * One message to send (a SendMessage input or a batch entry), checked and measured
 * against the most any plan allows (the plan's max_sqs_message_bytes and the queue's
 * MaximumMessageSize are checked by the send script, in its one call: sqsSizeCap).
 */
export function prepareSend(
  entry: Input,
  where: string,
  fifo: FifoQueue | null = null,
): PreparedSend {
  const body = optionalString(entry, 'MessageBody');
  if (body === undefined || body === '') throw missingParameter('MessageBody');
  if (!BODY_CHARS.test(body)) {
    throw new SqsError(
      'InvalidMessageContents',
      'Invalid characters found in MessageBody: only #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF are allowed.',
    );
  }
  const delay = optionalInteger(entry, 'DelaySeconds', 0, MAX_DELAY_SECONDS);
  const attributes = validateMessageAttributes(optionalMap(entry, 'MessageAttributes'));
  const given = optionalString(entry, 'MessageDeduplicationId');
  if (given !== undefined && (given.length < 1 || given.length > 128)) {
    throw invalidParameter('MessageDeduplicationId must be 1 to 128 characters.');
  }
  const { groupId, dedupKey: dedupId, dedupId: shownDedupId } = groupedSend(entry, body, fifo);
  const metadata = {
    ...(attributes ? { [METADATA_FIELD]: attributes } : {}),
    ...(fifo && shownDedupId !== undefined ? { [DEDUP_FIELD]: shownDedupId } : {}),
  };
  const sqsSize = sqsMessageSize(body, attributes);
  if (sqsSize > MAX_SQS_MESSAGE_BYTES) throw messageTooLong(sqsSize, MAX_SQS_MESSAGE_BYTES);
  let message: NewMessage;
  try {
    // no DelaySeconds: the channel's delay_seconds applies (in the store)
    message = newMessage(
      {
        body,
        content_type: 'text',
        ...(delay !== undefined ? { delay_seconds: delay } : {}),
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
        ...(dedupId !== undefined ? { dedup_id: dedupId } : {}),
        ...(groupId !== undefined ? { group_id: groupId } : {}),
      },
      // the store's ceiling on one message bounds its stored size (plans.ts storageCeiling)
      { where, maxBytes: Number.POSITIVE_INFINITY },
    );
  } catch (err) {
    throw toSqsError(err);
  }
  return {
    message,
    sqsSize,
    md5Body: md5Hex(body),
    ...(attributes ? { md5Attributes: md5OfMessageAttributes(attributes) } : {}),
  };
}

export function checkReceiptHandle(handle: string): void {
  if (!RECEIPT_HANDLE.test(handle)) {
    throw new SqsError(
      'ReceiptHandleIsInvalid',
      `The input receipt handle "${handle}" is not a valid receipt handle.`,
    );
  }
}

/** ChangeMessageVisibility of one receipt handle: 0 returns the message now, more extends the lease. */
export async function changeVisibility(
  call: SqsCall,
  channel: string,
  handle: string,
  seconds: number,
): Promise<void> {
  checkReceiptHandle(handle);
  const { relay } = call;
  const options = { mustExist: true };
  const changed = await onQueue(channel, async () =>
    seconds === 0
      ? (await relay.ack(call.caller(), channel, [], [{ leaseId: handle, delayMs: 0 }], options))
          .retriedCount
      : await relay.extend(call.caller(), channel, [handle], seconds * 1000, options),
  );
  if (changed === 0) {
    throw new SqsError(
      'MessageNotInflight',
      `The message of receipt handle ${handle} is not in flight: it was deleted, or its visibility timeout ended.`,
    );
  }
}

interface Pulled {
  body: unknown;
  id: string;
  timestamp_ms: number;
  attempts: number;
  metadata: unknown;
  lease_id: string;
  content_type: string;
  group_id?: string;
  sequence_number?: string;
  dead_letter?: { source_channel: string };
}

/** A relay message as SQS returns it: text as is, JSON as its compact text, bytes as base64. */
function toSqsMessage(
  pulled: Pulled,
  call: SqsCall,
  systemNames: Set<string>,
  attributeNames: string[] | undefined,
  receivedMs: number,
): Record<string, unknown> {
  const body =
    pulled.content_type === 'json' || typeof pulled.body !== 'string'
      ? JSON.stringify(pulled.body)
      : pulled.body;
  const all = [...systemNames].some(isAll);
  const system: Record<string, string> = {};
  if (all || systemNames.has('ApproximateReceiveCount'))
    system.ApproximateReceiveCount = String(pulled.attempts);
  if (all || systemNames.has('SentTimestamp')) system.SentTimestamp = String(pulled.timestamp_ms);
  // relayq keeps no first-receive time; on the first receive it is this one (docs/sqs.md)
  if ((all || systemNames.has('ApproximateFirstReceiveTimestamp')) && pulled.attempts === 1)
    system.ApproximateFirstReceiveTimestamp = String(receivedMs);
  if ((all || systemNames.has('DeadLetterQueueSourceArn')) && pulled.dead_letter)
    system.DeadLetterQueueSourceArn = queueArn(
      call.region,
      call.accountId,
      pulled.dead_letter.source_channel,
    );
  if ((all || systemNames.has('MessageGroupId')) && pulled.group_id !== undefined)
    system.MessageGroupId = pulled.group_id;
  if ((all || systemNames.has('SequenceNumber')) && pulled.sequence_number !== undefined)
    system.SequenceNumber = pulled.sequence_number;
  const dedupId = (pulled.metadata as Record<string, unknown> | null)?.[DEDUP_FIELD];
  if ((all || systemNames.has('MessageDeduplicationId')) && typeof dedupId === 'string')
    system.MessageDeduplicationId = dedupId;
  const attributes = selectAttributes(attributesFromMetadata(pulled.metadata), attributeNames);
  const hasAttributes = Object.keys(attributes).length > 0;
  return {
    MessageId: pulled.id,
    ReceiptHandle: pulled.lease_id,
    MD5OfBody: md5Hex(body),
    Body: body,
    ...(Object.keys(system).length > 0 ? { Attributes: system } : {}),
    ...(hasAttributes
      ? {
          MessageAttributes: attributes,
          MD5OfMessageAttributes: md5OfMessageAttributes(attributes),
        }
      : {}),
  };
}

export async function sendMessage(call: SqsCall) {
  const channel = queueChannel(call);
  const fifo = await sendTarget(call, channel);
  const prepared = await parametersOn(call, channel, () => prepareSend(call.input, '', fifo));
  const sequenceNumbers: string[] = [];
  const [id] = await onQueue(channel, () =>
    call.relay.send(call.caller(), channel, [prepared.message], {
      mustExist: true,
      sizeCap: sqsSizeCap([prepared.sqsSize]),
      sequenceNumbers,
    }),
  );
  return {
    MessageId: id,
    ...(sequenceNumbers[0] ? { SequenceNumber: sequenceNumbers[0] } : {}),
    MD5OfMessageBody: prepared.md5Body,
    ...(prepared.md5Attributes ? { MD5OfMessageAttributes: prepared.md5Attributes } : {}),
  };
}

/** ReceiveRequestAttemptId: 1-128 of alphanumerics and punctuation, as SQS takes it. */
function receiveAttemptId(input: Input): string | undefined {
  const id = optionalString(input, 'ReceiveRequestAttemptId');
  if (id !== undefined && !/^[!-~]{1,128}$/.test(id)) {
    throw invalidParameter(
      `Value ${id} for parameter ReceiveRequestAttemptId is invalid. Reason: it must be 1 to 128 alphanumeric or punctuation characters.`,
    );
  }
  return id;
}

export async function receiveMessage(call: SqsCall) {
  const channel = queueChannel(call);
  const { input } = call;
  const { batchSize, visibility, waitSeconds, systemNames, attributeNames, attemptId } =
    await parametersOn(call, channel, () => ({
      batchSize: optionalInteger(input, 'MaxNumberOfMessages', 1, MAX_RECEIVE) ?? 1,
      visibility: optionalInteger(input, 'VisibilityTimeout', 0, MAX_VISIBILITY_SECONDS),
      // none given: the queue's ReceiveMessageWaitTimeSeconds (read by the first pull)
      waitSeconds: optionalInteger(input, 'WaitTimeSeconds', 0, MAX_WAIT_SECONDS),
      systemNames: new Set([
        ...(optionalStringList(input, 'AttributeNames') ?? []),
        ...(optionalStringList(input, 'MessageSystemAttributeNames') ?? []),
      ]),
      attributeNames: optionalStringList(input, 'MessageAttributeNames'),
      attemptId: receiveAttemptId(input),
    }));
  const result = await onQueue(channel, () =>
    call.relay.pull({
      caller: call.caller(),
      channel,
      options: {
        // none given: the queue's VisibilityTimeout (the channel's setting, in the script)
        visibilityTimeoutMs: visibility === undefined ? null : visibility * 1000,
        batchSize,
        mustExist: true,
        ...(attemptId !== undefined ? { attemptId } : {}),
      },
      waitMs: waitSeconds === undefined ? null : waitSeconds * 1000,
      signal: call.signal,
    }),
  );
  const receivedMs = Date.now();
  // SQS leaves Messages out when there are none
  if (result.messages.length === 0) return {};
  return {
    Messages: result.messages.map((json) =>
      toSqsMessage(JSON.parse(json) as Pulled, call, systemNames, attributeNames, receivedMs),
    ),
  };
}

export async function deleteMessage(call: SqsCall) {
  const channel = queueChannel(call);
  const handle = await parametersOn(call, channel, () => {
    const given = requiredString(call.input, 'ReceiptHandle');
    checkReceiptHandle(given);
    return given;
  });
  // as in SQS, deleting with a stale receipt handle succeeds and changes nothing
  await onQueue(channel, () =>
    call.relay.ack(call.caller(), channel, [handle], [], { mustExist: true }),
  );
  return {};
}

export async function changeMessageVisibility(call: SqsCall) {
  const channel = queueChannel(call);
  const { handle, seconds } = await parametersOn(call, channel, () => {
    const given = requiredString(call.input, 'ReceiptHandle');
    checkReceiptHandle(given);
    return {
      handle: given,
      seconds: requiredInteger(call.input, 'VisibilityTimeout', 0, MAX_VISIBILITY_SECONDS),
    };
  });
  await changeVisibility(call, channel, handle, seconds);
  return {};
}
