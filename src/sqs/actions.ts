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
};

/** SQS actions for features relayq does not have (permissions, tags, message move tasks). */
const UNSUPPORTED = new Set([
  'AddPermission',
  'RemovePermission',
  'TagQueue',
  'UntagQueue',
  'ListQueueTags',
  'StartMessageMoveTask',
  'CancelMessageMoveTask',
  'ListMessageMoveTasks',
]);

/** The handler X-Amz-Target names (`AmazonSQS.<Action>`). */
export function actionFor(target: string | string[] | undefined): SqsAction {
  if (typeof target !== 'string' || target === '') {
    throw new SqsError(
      'InvalidAction',
      'The X-Amz-Target header is missing: send X-Amz-Target: AmazonSQS.<Action> with the JSON protocol (the query protocol is not supported).',
    );
  }
  const match = /^AmazonSQS\.([A-Za-z]+)$/.exec(target);
  const name = match?.[1] ?? '';
  if (Object.hasOwn(ACTIONS, name)) return ACTIONS[name];
  if (UNSUPPORTED.has(name)) {
    throw new SqsError('UnsupportedOperation', `${name} is not supported by relayq.`);
  }
  throw new SqsError('InvalidAction', `The action or operation requested is invalid: ${target}.`);
}
