/**
 * The result schemas of every endpoint (the `result` of the envelope), defined
 * once here, next to the request schemas of src/schemas/requests.ts. The
 * OpenAPI document is built from both; the tests check every response
 * against it, so a change of shape without a change here fails them.
 */
import { CONTENT_TYPES, LIMITS } from '../schemas/requests';

const integer = { type: 'integer', minimum: 0 };
const count = (description: string) => ({ ...integer, description });
const msOrNull = { type: ['integer', 'null'] };
const strict = (properties: Record<string, object>, required = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

export const pulledMessage = strict(
  {
    id: { type: 'string', description: 'the message id (a UUID)' },
    body: { description: 'the body as sent' },
    content_type: { type: 'string', enum: CONTENT_TYPES },
    timestamp_ms: { ...integer, description: 'when the relay stored it (its clock)' },
    attempts: { type: 'integer', minimum: 1, description: 'deliveries so far, this one included' },
    metadata: { type: 'object' },
    lease_id: { type: 'string', description: 'acknowledge, extend or retry with this' },
    dead_letter: strict({ source_channel: { type: 'string' }, attempts: integer }),
  },
  ['id', 'body', 'content_type', 'timestamp_ms', 'attempts', 'metadata', 'lease_id'],
);

const channelCounts = {
  id: { type: 'string' },
  queued: count('available now'),
  delayed: count('waiting for their delay'),
  in_flight: count('leased'),
  storage_bytes: integer,
  oldest_message_ms: msOrNull,
};

export const channelConfig = strict({
  dead_letter_channel: { type: ['string', 'null'] },
  max_attempts: { type: 'integer', minimum: 1, maximum: LIMITS.maxAttempts },
  dedup_window_seconds: { type: 'integer', minimum: 1 },
});

export const channel = strict({ ...channelCounts, config: channelConfig });

export const token = strict(
  {
    id: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    name: { type: ['string', 'null'] },
    channels: { type: ['array', 'null'], items: { type: 'string' } },
    expires_ms: msOrNull,
    created_ms: integer,
    role: { type: 'string', enum: ['relay', 'owner'] },
    token: { type: 'string', description: 'the secret: only in the answer that creates it' },
    kind: { const: 'session', description: 'a dashboard session (operator lists only)' },
    parent_id: { type: 'string', description: "a session's sign-in token" },
  },
  ['id', 'name', 'channels', 'expires_ms'],
);

const usage = strict({ storage_bytes: integer, channels: integer });

export const account = strict(
  {
    id: { type: 'string' },
    plan: { type: 'string' },
    created_ms: integer,
    usage,
    limits: {
      type: 'object',
      description: "the plan's limits; a limit of null is unlimited",
      additionalProperties: { type: ['integer', 'null'] },
    },
  },
  ['id', 'plan'],
);

export const RESULTS = {
  send: strict({ id: { type: 'string' } }),
  sendBatch: strict({ ids: { type: 'array', items: { type: 'string' } } }),
  pull: strict({
    message_backlog_count: count('messages left available after this pull'),
    messages: { type: 'array', items: pulledMessage },
  }),
  ack: strict({ acked_count: integer, retried_count: integer }, ['acked_count']),
  extend: strict({ extended_count: integer }),
  purge: strict({ purged_count: integer }),
  redrive: strict({ moved_count: integer }),
  channelList: strict({
    channels: { type: 'array', items: strict(channelCounts) },
  }),
  channel,
  channelDelete: strict({ deleted_count: integer }),
  whoami: strict({
    account: { type: 'string' },
    token_id: { type: 'string' },
    role: { type: 'string', enum: ['relay', 'owner'] },
    channels: { type: ['array', 'null'], items: { type: 'string' } },
    expires_ms: msOrNull,
    plan: { type: 'string' },
  }),
  account,
  tokenList: strict({ tokens: { type: 'array', items: token } }),
  token,
  revoked: strict({ id: { type: 'string' }, revoked: { const: true } }),
  adminAccount: strict({ id: { type: 'string' }, plan: { type: 'string' }, usage }, ['id', 'plan']),
  accountDeleted: strict({ id: { type: 'string' }, deleted: { const: true } }),
  session: strict({
    account: { type: 'string' },
    expires_ms: msOrNull,
    csrf_token: { type: 'string' },
  }),
  signedOut: strict({ signed_out: { const: true } }),
  health: strict({ status: { type: 'string' } }),
  openapi: { type: 'object', description: 'this document' },
} as const;
