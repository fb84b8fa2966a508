/** Finding the channel an action names, with SQS's errors for the ways that can fail. */
import type { AuthContext } from '../auth/authenticate';
import { describeIdRule, isValidId } from '../schemas/ids';
import type { ChannelStats } from '../store/types';
import type { SqsCall } from './context';
import { SqsError, invalidParameter } from './errors';
import { requiredString } from './params';
import { parseQueueUrl } from './queueUrl';

export interface Queue {
  channel: string;
  stats: ChannelStats;
}

export function checkQueueName(name: string, parameter = 'QueueName'): void {
  if (!isValidId(name)) throw invalidParameter(`${describeIdRule(parameter)}.`);
}

/** AccessDenied unless the token may use the channel. */
export function checkQueueScope(auth: AuthContext, channel: string): void {
  if (auth.channels !== null && !auth.channels.includes(channel)) {
    throw new SqsError(
      'AccessDenied',
      `Access to the resource ${channel} is denied: this token may not use queue ${channel}.`,
    );
  }
}

export const queueDoesNotExist = (channel: string) =>
  new SqsError('QueueDoesNotExist', `The specified queue does not exist: ${channel}.`);

/** The existing queue the call's QueueUrl names, in the caller's account and scope. */
export async function resolveQueue(call: SqsCall): Promise<Queue> {
  const url = requiredString(call.input, 'QueueUrl');
  const { accountId, channel } = parseQueueUrl(url);
  if (accountId !== call.auth.accountId) {
    throw new SqsError(
      'AccessDenied',
      `Access to the resource ${url} is denied: it belongs to another account.`,
    );
  }
  if (!isValidId(channel)) throw queueDoesNotExist(channel);
  checkQueueScope(call.auth, channel);
  const stats = await call.deps.store.channels.get(accountId, channel);
  if (!stats) throw queueDoesNotExist(channel);
  return { channel, stats };
}
