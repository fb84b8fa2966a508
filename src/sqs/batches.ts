/**
 * The batch actions: up to 10 entries with ids unique within the request.
 * A malformed request (no entries, too many, bad or repeated ids) fails as a
 * whole; an entry that is itself invalid lands in Failed and the others go on.
 */
import type { SqsCall } from './context';
import { SqsError, toSqsError } from './errors';
import {
  MAX_VISIBILITY_SECONDS,
  changeVisibility,
  checkReceiptHandle,
  prepareSend,
  type PreparedSend,
} from './messages';
import { requiredInteger, requiredObjectList, requiredString, type Input } from './params';
import { onQueue, parametersOn, queueChannel, requireQueue } from './resolve';
import { sqsSizeCap } from './settings';
import { sendTarget } from './fifo';

const MAX_ENTRIES = 10;
/** SQS's limit on a whole SendMessageBatch (the sum of its messages' SQS sizes) */
const MAX_BATCH_BYTES = 1_048_576;
const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

interface Failed {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message: string;
}

function failed(id: string, err: unknown): Failed {
  const e = toSqsError(err);
  return { Id: id, SenderFault: e.status < 500, Code: e.code, Message: e.message };
}

/** The entries, checked as SQS checks a batch request before looking at any entry. */
function batchEntries(input: Input): { id: string; entry: Input }[] {
  const entries = requiredObjectList(input, 'Entries');
  if (entries.length === 0) {
    throw new SqsError('EmptyBatchRequest', 'There should be at least one entry in the request.');
  }
  if (entries.length > MAX_ENTRIES) {
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_ENTRIES}. You have sent ${entries.length}.`,
    );
  }
  const seen = new Set<string>();
  return entries.map((entry) => {
    const id = entry.Id;
    if (typeof id !== 'string' || !ENTRY_ID.test(id)) {
      throw new SqsError(
        'InvalidBatchEntryId',
        `A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long; got ${JSON.stringify(id)}.`,
      );
    }
    if (seen.has(id)) {
      throw new SqsError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    }
    seen.add(id);
    return { id, entry };
  });
}

export async function sendMessageBatch(call: SqsCall) {
  const channel = queueChannel(call);
  const entries = await parametersOn(call, channel, () => batchEntries(call.input));
  const fifo = await sendTarget(call, channel);
  const Failed: Failed[] = [];
  const ready: { id: string; prepared: PreparedSend }[] = [];
  for (const { id, entry } of entries) {
    try {
      ready.push({ id, prepared: prepareSend(entry, `message ${id}`, fifo) });
    } catch (err) {
      Failed.push(failed(id, err));
    }
  }
  const total = ready.reduce((sum, r) => sum + r.prepared.sqsSize, 0);
  if (total > MAX_BATCH_BYTES) {
    throw new SqsError(
      'BatchRequestTooLong',
      `Batch requests cannot be longer than ${MAX_BATCH_BYTES} bytes (bodies and message attributes of its messages); this one is ${total} bytes.`,
    );
  }
  // the valid entries are stored together, all or nothing (a plan limit fails the request)
  if (ready.length === 0) await requireQueue(call, channel);
  const sequenceNumbers: string[] = [];
  const ids =
    ready.length === 0
      ? []
      : await onQueue(channel, () =>
          call.relay.send(
            call.caller(),
            channel,
            ready.map((r) => r.prepared.message),
            {
              mustExist: true,
              sizeCap: sqsSizeCap(ready.map((r) => r.prepared.sqsSize)),
              sequenceNumbers,
            },
          ),
        );
  const Successful = ready.map(({ id, prepared }, i) => ({
    Id: id,
    MessageId: ids[i],
    ...(sequenceNumbers[i] ? { SequenceNumber: sequenceNumbers[i] } : {}),
    MD5OfMessageBody: prepared.md5Body,
    ...(prepared.md5Attributes ? { MD5OfMessageAttributes: prepared.md5Attributes } : {}),
  }));
  return { Successful, Failed };
}

export async function deleteMessageBatch(call: SqsCall) {
  const channel = queueChannel(call);
  const entries = await parametersOn(call, channel, () => batchEntries(call.input));
  const Failed: Failed[] = [];
  const valid: { id: string; handle: string }[] = [];
  for (const { id, entry } of entries) {
    try {
      const handle = requiredString(entry, 'ReceiptHandle');
      checkReceiptHandle(handle);
      valid.push({ id, handle });
    } catch (err) {
      Failed.push(failed(id, err));
    }
  }
  if (valid.length === 0) await requireQueue(call, channel);
  if (valid.length > 0) {
    // as in SQS, a stale receipt handle's delete succeeds and changes nothing
    await onQueue(channel, () =>
      call.relay.ack(
        call.caller(),
        channel,
        valid.map((v) => v.handle),
        [],
        { mustExist: true },
      ),
    );
  }
  return { Successful: valid.map((v) => ({ Id: v.id })), Failed };
}

export async function changeMessageVisibilityBatch(call: SqsCall) {
  const channel = queueChannel(call);
  const entries = await parametersOn(call, channel, () => batchEntries(call.input));
  const Failed: Failed[] = [];
  const Successful: { Id: string }[] = [];
  for (const { id, entry } of entries) {
    try {
      const handle = requiredString(entry, 'ReceiptHandle');
      const seconds = requiredInteger(entry, 'VisibilityTimeout', 0, MAX_VISIBILITY_SECONDS);
      await changeVisibility(call, channel, handle, seconds);
      Successful.push({ Id: id });
    } catch (err) {
      // a missing queue fails the whole request, as SQS answers it
      if (!(err instanceof SqsError) || err.code === 'QueueDoesNotExist') throw err;
      Failed.push(failed(id, err));
    }
  }
  if (Successful.length === 0) await requireQueue(call, channel);
  return { Successful, Failed };
}
