/** Finding the channel an action names, with SQS's errors for the ways that can fail. */
import { RelayError } from '../errors';
import type { AuthContext, ChannelStats } from '../relay';
import { describeIdRule, isValidId } from '../schemas/ids';
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

/**
 * The channel the call's QueueUrl names, in the caller's account; no Redis. The message
 * actions pass it to their one script call, which checks the token's scope and that the
 * channel exists (mustExist).
 */
export function queueChannel(call: SqsCall): string {
  const url = requiredString(call.input, 'QueueUrl');
  const { accountId, channel } = parseQueueUrl(url);
  if (accountId !== call.accountId) {
    throw new SqsError(
      'AccessDenied',
      `Access to the resource ${url} is denied: it belongs to another account.`,
    );
  }
  if (!isValidId(channel)) throw queueDoesNotExist(channel);
  return channel;
}

/** The existing queue the call's QueueUrl names, with its stats, in the caller's scope. */
export async function resolveQueue(call: SqsCall): Promise<Queue> {
  const channel = queueChannel(call);
  const auth = await call.auth();
  checkQueueScope(auth, channel);
  const stats = await call.relay.channels.stats(auth, channel);
  if (!stats) throw queueDoesNotExist(channel);
  return { channel, stats };
}

/**
 * Reads a message action's parameters. SQS names a missing queue before a bad parameter, so
 * when one is refused the queue is looked up first (a refusal may cost a second call).
 */
export async function parametersOn<T>(call: SqsCall, channel: string, read: () => T): Promise<T> {
  try {
    return read();
  } catch (err) {
    await requireQueue(call, channel);
    throw err;
  }
}

/** QueueDoesNotExist (or AccessDenied) unless the queue exists: for a request no script checks. */
export async function requireQueue(call: SqsCall, channel: string): Promise<void> {
  const auth = await call.auth();
  checkQueueScope(auth, channel);
  if (!(await call.relay.channels.stats(auth, channel))) throw queueDoesNotExist(channel);
}

/** Runs a script call on the queue, its missing channel told as SQS tells a missing queue. */
export async function onQueue<T>(channel: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RelayError && err.code === 'channel_not_found')
      throw queueDoesNotExist(channel);
    throw err;
  }
}
