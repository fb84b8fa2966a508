/**
 * The query protocol's names for SQS's parameters and results, from SQS's
 * service model (API version 2012-11-05): every list and map is flattened, a
 * list under its member's name (`AttributeName.1`, `<QueueUrl>` repeated), a
 * map as numbered entries of a key and a value (`Attribute.1.Name`,
 * `Attribute.1.Value`; `<Attribute><Name/><Value/></Attribute>`). Inputs are
 * read into, and outputs written from, the JSON protocol's shapes, so each
 * action's code exists once.
 */

export type Shape =
  | { kind: 'string' }
  | { kind: 'integer' }
  /** `<member>.N`, N from 1 */
  | { kind: 'list'; member: string; of: Shape }
  /** `<entry>.N.<key>` and `<entry>.N.<value>` */
  | { kind: 'map'; entry: string; key: string; value: string; of: Shape }
  | { kind: 'structure'; members: Members };

/** A structure's members by their JSON name. */
export type Members = Readonly<Record<string, Shape>>;

const STRING: Shape = { kind: 'string' };
const INTEGER: Shape = { kind: 'integer' };
const list = (member: string, of: Shape = STRING): Shape => ({ kind: 'list', member, of });
const map = (entry: string, key: string, value: string, of: Shape = STRING): Shape => ({
  kind: 'map',
  entry,
  key,
  value,
  of,
});
const structure = (members: Members): Shape => ({ kind: 'structure', members });

const ATTRIBUTE_VALUE = structure({
  DataType: STRING,
  StringValue: STRING,
  BinaryValue: STRING,
  StringListValues: list('StringListValue'),
  BinaryListValues: list('BinaryListValue'),
});
const QUEUE_ATTRIBUTES = map('Attribute', 'Name', 'Value');
const TAGS = map('Tag', 'Key', 'Value');
const MESSAGE = {
  MessageBody: STRING,
  DelaySeconds: INTEGER,
  MessageAttributes: map('MessageAttribute', 'Name', 'Value', ATTRIBUTE_VALUE),
  MessageSystemAttributes: map('MessageSystemAttribute', 'Name', 'Value', ATTRIBUTE_VALUE),
  MessageDeduplicationId: STRING,
  MessageGroupId: STRING,
};
const QUEUE = { QueueUrl: STRING };
const PAGE = { NextToken: STRING, MaxResults: INTEGER };

/** Each action's parameters (the members of its JSON input). */
export const QUERY_INPUTS: Readonly<Record<string, Members>> = {
  CreateQueue: { QueueName: STRING, Attributes: QUEUE_ATTRIBUTES, tags: TAGS },
  GetQueueUrl: { QueueName: STRING, QueueOwnerAWSAccountId: STRING },
  ListQueues: { QueueNamePrefix: STRING, ...PAGE },
  DeleteQueue: QUEUE,
  PurgeQueue: QUEUE,
  GetQueueAttributes: { ...QUEUE, AttributeNames: list('AttributeName') },
  SetQueueAttributes: { ...QUEUE, Attributes: QUEUE_ATTRIBUTES },
  ListDeadLetterSourceQueues: { ...QUEUE, ...PAGE },
  SendMessage: { ...QUEUE, ...MESSAGE },
  SendMessageBatch: {
    ...QUEUE,
    Entries: list('SendMessageBatchRequestEntry', structure({ Id: STRING, ...MESSAGE })),
  },
  ReceiveMessage: {
    ...QUEUE,
    AttributeNames: list('AttributeName'),
    MessageSystemAttributeNames: list('MessageSystemAttributeName'),
    MessageAttributeNames: list('MessageAttributeName'),
    MaxNumberOfMessages: INTEGER,
    VisibilityTimeout: INTEGER,
    WaitTimeSeconds: INTEGER,
    ReceiveRequestAttemptId: STRING,
  },
  DeleteMessage: { ...QUEUE, ReceiptHandle: STRING },
  DeleteMessageBatch: {
    ...QUEUE,
    Entries: list(
      'DeleteMessageBatchRequestEntry',
      structure({ Id: STRING, ReceiptHandle: STRING }),
    ),
  },
  ChangeMessageVisibility: { ...QUEUE, ReceiptHandle: STRING, VisibilityTimeout: INTEGER },
  ChangeMessageVisibilityBatch: {
    ...QUEUE,
    Entries: list(
      'ChangeMessageVisibilityBatchRequestEntry',
      structure({ Id: STRING, ReceiptHandle: STRING, VisibilityTimeout: INTEGER }),
    ),
  },
  TagQueue: { ...QUEUE, Tags: TAGS },
  UntagQueue: { ...QUEUE, TagKeys: list('TagKey') },
  ListQueueTags: QUEUE,
};

/** The XML element of each item of an output list, by the list's JSON name. */
export function listElement(member: string, action: string): string {
  switch (member) {
    case 'QueueUrls':
    case 'queueUrls':
      return 'QueueUrl';
    case 'Messages':
      return 'Message';
    case 'Failed':
      return 'BatchResultErrorEntry';
    case 'Successful':
      return `${action}ResultEntry`;
    default:
      throw new Error(`no XML name for the output list ${member} of ${action}`);
  }
}

/** The XML entry, key and value elements of an output map, by the map's JSON name. */
export const MAP_ELEMENTS: Readonly<Record<string, [string, string, string]>> = {
  Attributes: ['Attribute', 'Name', 'Value'],
  MessageAttributes: ['MessageAttribute', 'Name', 'Value'],
  Tags: ['Tag', 'Key', 'Value'],
};

/** The actions whose answer has a result element (`<XResult>`); the others only metadata. */
export const HAS_RESULT: ReadonlySet<string> = new Set([
  'CreateQueue',
  'GetQueueUrl',
  'ListQueues',
  'GetQueueAttributes',
  'ListDeadLetterSourceQueues',
  'SendMessage',
  'SendMessageBatch',
  'ReceiveMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibilityBatch',
  'ListQueueTags',
]);
