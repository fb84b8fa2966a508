/**
 * Queue tags: TagQueue, UntagQueue, ListQueueTags and CreateQueue's tags. They
 * are kept per channel (deleted with it) and mean nothing to relayq itself:
 * kombu and Terraform set and read them.
 */
import type { AuthContext, TagsChange } from '../relay';
import type { SqsCall } from './context';
import { invalidParameter, missingParameter } from './errors';
import { optionalStringList, optionalStringMap, type Input } from './params';
import { onQueue, parametersOn, queueChannel } from './resolve';

/** SQS's limits: 50 tags a queue, keys of 1 to 128 characters, values of at most 256 */
export const MAX_TAGS = 50;
const MAX_KEY_LENGTH = 128;
const MAX_VALUE_LENGTH = 256;

/** The tags a request sets (member `name`), checked; undefined when it sets none. */
export function requestedTags(input: Input, name: string): Record<string, string> | undefined {
  const tags = optionalStringMap(input, name);
  if (tags === undefined) return undefined;
  const keys = Object.keys(tags);
  if (keys.length > MAX_TAGS) {
    throw invalidParameter(
      `A queue may have at most ${MAX_TAGS} tags; ${name} has ${keys.length}.`,
    );
  }
  for (const key of keys) {
    // lengths in characters (code points), as SQS counts them
    const keyLength = [...key].length;
    if (keyLength < 1 || keyLength > MAX_KEY_LENGTH) {
      throw invalidParameter(
        `Tag key ${JSON.stringify(key)} is invalid: tag keys are 1 to ${MAX_KEY_LENGTH} characters.`,
      );
    }
    if ([...tags[key]].length > MAX_VALUE_LENGTH) {
      throw invalidParameter(
        `The value of tag ${JSON.stringify(key)} is invalid: tag values are at most ${MAX_VALUE_LENGTH} characters.`,
      );
    }
  }
  return keys.length > 0 ? tags : undefined;
}

/** Stores the tags of a queue just created (CreateQueue's tags). */
export async function tagNewQueue(
  call: SqsCall,
  auth: AuthContext,
  channel: string,
  tags: Record<string, string>,
): Promise<void> {
  await call.relay.channels.tags(auth, channel, { set: tags, maxTags: MAX_TAGS });
}

/**
 * The queue's tags after the change `read` makes of the parameters: one script call, which
 * also finds the queue (a missing queue is told before a bad parameter, as SQS does).
 */
async function changeTags(
  call: SqsCall,
  read: () => TagsChange | undefined,
): Promise<Record<string, string>> {
  const channel = queueChannel(call);
  const change = await parametersOn(call, channel, read);
  const auth = await call.auth();
  return onQueue(channel, () => call.relay.channels.tags(auth, channel, change));
}

export async function tagQueue(call: SqsCall) {
  await changeTags(call, () => {
    if (call.input.Tags === undefined || call.input.Tags === null) throw missingParameter('Tags');
    return { set: requestedTags(call.input, 'Tags') ?? {}, maxTags: MAX_TAGS };
  });
  return {};
}

export async function untagQueue(call: SqsCall) {
  await changeTags(call, () => {
    const keys = optionalStringList(call.input, 'TagKeys');
    if (keys === undefined) throw missingParameter('TagKeys');
    return { remove: keys };
  });
  return {};
}

export async function listQueueTags(call: SqsCall) {
  const Tags = await changeTags(call, () => undefined);
  return Object.keys(Tags).length > 0 ? { Tags: { ...Tags } } : {};
}
