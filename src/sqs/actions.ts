/** The SQS actions relayq answers, and those it knows but does not support. */
import { changeMessageVisibilityBatch, deleteMessageBatch, sendMessageBatch } from './batches';
import type { SqsAction } from './context';
import { SqsError } from './errors';
import { changeMessageVisibility, deleteMessage, receiveMessage, sendMessage } from './messages';
import {
  createQueue,
  deleteQueue,
  getQueueAttributes,
  getQueueUrl,
  listDeadLetterSourceQueues,
  listQueues,
  purgeQueue,
  setQueueAttributes,
} from './queues';
import { listQueueTags, tagQueue, untagQueue } from './tags';

export const ACTIONS: Readonly<Record<string, SqsAction>> = {
  CreateQueue: createQueue,
  GetQueueUrl: getQueueUrl,
  ListQueues: listQueues,
  DeleteQueue: deleteQueue,
  PurgeQueue: purgeQueue,
  GetQueueAttributes: getQueueAttributes,
  SetQueueAttributes: setQueueAttributes,
  ListDeadLetterSourceQueues: listDeadLetterSourceQueues,
  SendMessage: sendMessage,
  SendMessageBatch: sendMessageBatch,
  ReceiveMessage: receiveMessage,
  DeleteMessage: deleteMessage,
  DeleteMessageBatch: deleteMessageBatch,
  ChangeMessageVisibility: changeMessageVisibility,
  ChangeMessageVisibilityBatch: changeMessageVisibilityBatch,
  TagQueue: tagQueue,
  UntagQueue: untagQueue,
  ListQueueTags: listQueueTags,
};

/** SQS actions for features relayq does not have (permissions, message move tasks). */
const UNSUPPORTED = new Set([
  'AddPermission',
  'RemovePermission',
  'StartMessageMoveTask',
  'CancelMessageMoveTask',
  'ListMessageMoveTasks',
]);

/** The handler of an action name (`shown`: how the request named it, for the error). */
export function actionNamed(name: string, shown: string): SqsAction {
  if (Object.hasOwn(ACTIONS, name)) return ACTIONS[name];
  if (UNSUPPORTED.has(name)) {
    throw new SqsError('UnsupportedOperation', `${name} is not supported by relayq.`);
  }
  throw new SqsError('InvalidAction', `The action or operation requested is invalid: ${shown}.`);
}

/** The action X-Amz-Target names (`AmazonSQS.<Action>`), or '' when it names none. */
export function targetAction(target: string | string[] | undefined): string {
  const match = typeof target === 'string' ? /^AmazonSQS\.([A-Za-z]+)$/.exec(target) : null;
  return match?.[1] ?? '';
}

/** The handler X-Amz-Target names. */
export function actionFor(target: string | string[] | undefined): SqsAction {
  if (typeof target !== 'string' || target === '') {
    throw new SqsError(
      'InvalidAction',
      'The X-Amz-Target header is missing: send X-Amz-Target: AmazonSQS.<Action> with the JSON protocol, or Action=<Action> with the query protocol.',
    );
  }
  return actionNamed(targetAction(target), target);
}
