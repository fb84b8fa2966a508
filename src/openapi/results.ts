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
    metadata: { type: 'object', additionalProperties: true },
    lease_id: { type: 'string', description: 'acknowledge, extend or retry with this' },
    group_id: {
      type: 'string',
      description: 'its message group (docs/api/groups.md), when sent with one',
    },
    sequence_number: {
      type: 'string',
      description: "a FIFO channel's sequence number (decimal, increasing per channel)",
    },
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
  groups: count('message groups holding a message (docs/api/groups.md)'),
  blocked_groups: count('groups whose head is in flight or waiting for a retry'),
  dead_count: count(
    'messages its push destination gave up on, kept as dead in it (POST .../redrive brings them back)',
  ),
};

/** A channel's settings as in effect: one never set shows its default. */
export const channelConfig = strict({
  dead_letter_channel: { type: ['string', 'null'] },
  max_attempts: { type: 'integer', minimum: 1, maximum: LIMITS.maxAttempts },
  dedup_window_seconds: { type: 'integer', minimum: 1 },
  paused: { type: 'boolean', description: 'pulls and SQS receives get nothing; sends still store' },
  visibility_timeout_ms: count('lease length of a pull that gives none'),
  delay_seconds: count('delay of a message sent without delay_seconds'),
  retention_seconds: {
    type: 'integer',
    minimum: 1,
    description: "how long a message is kept (at most the plan's retention)",
  },
  receive_wait_seconds: count("the SQS endpoint's default WaitTimeSeconds"),
  history_seconds: count(
    "how long a message's record is kept after it ends (0: no history; at most the plan's max_history_seconds)",
  ),
  group_order: {
    type: 'string',
    enum: ['strict', 'fair'],
    description:
      'strict: order per group and fair turns; fair: fair turns only (docs/api/groups.md)',
  },
  fifo: { type: 'boolean', description: 'every message needs a group_id (an SQS .fifo queue)' },
});

export const channel = strict({
  ...channelCounts,
  oldest_message_age_seconds: {
    type: ['number', 'null'],
    minimum: 0,
    description: 'seconds since the oldest message was sent (the relay clock); null when empty',
  },
  expiring_within_1h: count(
    'messages whose retention ends within the next hour (by whole minutes: up to a minute more)',
  ),
  config: channelConfig,
});

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
    rate_limit_per_second: {
      type: 'integer',
      minimum: 1,
      description: "this token's own request rate, below the account's",
    },
    aws_access_key_id: {
      type: 'string',
      description: 'the AWS access key id that signs as this token on the SQS endpoint',
    },
    aws_secret_access_key: {
      type: 'string',
      description: 'its AWS secret access key: only in the answer that creates it',
    },
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
      properties: {
        max_storage_bytes: integer,
        max_channels: integer,
        retention_seconds: integer,
        rate_limit_per_second: count('requests per second of the whole account; 0: unlimited'),
        rate_limit_burst: count("requests at once before the rate applies; 0: one second's worth"),
        max_tokens: integer,
        max_websocket_connections: count('open WebSockets of the account'),
        max_long_polls: count('long-poll waits of the account at once'),
        max_webhook_bytes: count('largest body a webhook URL of the account accepts'),
        max_sqs_message_bytes: count(
          'largest message sent through the SQS endpoint, as SQS counts it',
        ),
        max_history_seconds: count("the most a channel's history_seconds may be; 0: no history"),
        max_message_bytes: integer,
      },
      additionalProperties: { type: ['integer', 'null'] },
    },
  },
  ['id', 'plan'],
);

/** A webhook's verification settings as shown: never the secret. */
const webhookVerify = {
  oneOf: [
    { type: 'null' },
    strict(
      {
        scheme: { type: 'string', enum: ['github', 'stripe', 'standard-webhooks', 'hmac-sha256'] },
        on_failure: { type: 'string', enum: ['reject', 'record'] },
        header: { type: 'string' },
        encoding: { type: 'string', enum: ['hex', 'base64'] },
        prefix: { type: 'string' },
      },
      ['scheme', 'on_failure'],
    ),
  ],
};

const webhookCommon = {
  id: { type: 'string', pattern: '^[0-9a-f]{16}$' },
  label: { type: ['string', 'null'] },
  verify: webhookVerify,
  dedup_header: { type: ['string', 'null'] },
  group_by: {
    oneOf: [
      strict({ header: { type: 'string' } }),
      strict({ json_pointer: { type: 'string' } }),
      { type: 'null' },
    ],
    description: 'where a delivery gets its group_id (docs/api/groups.md); null: no group',
  },
  created_at: { ...integer, description: 'ms since the epoch' },
};

/** The copies a send to a channel with routes stored, in order (docs/api/routes.md). */
const routed = {
  type: 'array',
  items: strict({ channel: { type: 'string' }, id: { type: 'string' } }),
  description:
    'with routes: the copies stored, in order (the kept copy first); absent without routes',
};

/** A push destination as shown (docs/api/destinations.md): never its secret but on creation. */
const destinationCommon = {
  id: { type: 'string', pattern: '^dst_[0-9a-f]{16}$' },
  url: { type: 'string' },
  headers: { type: 'object', additionalProperties: { type: 'string' } },
  timeout_ms: integer,
  state: { type: 'string', enum: ['active', 'paused', 'disabled'] },
  signing: { type: 'string', enum: ['standard-webhooks', 'none'] },
  retry: strict({
    schedule_seconds: { type: 'array', items: integer },
    max_attempts: integer,
  }),
  rate_limit: {
    oneOf: [{ type: 'null' }, strict({ count: integer, period_seconds: integer })],
  },
  parallelism: integer,
  created_at: { ...integer, description: 'ms since the epoch' },
};
const destinationDetail = strict(
  {
    ...destinationCommon,
    last_success_at: msOrNull,
    last_failure_at: msOrNull,
    last_failure: { type: ['string', 'null'], description: 'the last failure, one line' },
    consecutive_failures: integer,
    disabled_reason: { type: ['string', 'null'] },
    circuit_open_until: { ...msOrNull, description: 'ms since the epoch; null: closed' },
    dead_count: count('messages it gave up on, kept as dead in the channel'),
    secret: { type: 'string', description: 'only when rotate_secret was asked' },
  },
  [
    ...Object.keys(destinationCommon),
    'last_success_at',
    'last_failure_at',
    'last_failure',
    'consecutive_failures',
    'disabled_reason',
    'circuit_open_until',
    'dead_count',
  ],
);

const historyStatus = {
  type: 'string',
  enum: ['pending', 'in_flight', 'acked', 'dead', 'expired', 'purged'],
};
const historySummary = {
  id: { type: 'string' },
  received_at: integer,
  entrance: { type: 'string', enum: ['api', 'webhook', 'sqs', 'route', 'replay'] },
  status: historyStatus,
  attempts: count('deliveries so far'),
  size: count('bytes of body + metadata JSON'),
  group_id: {
    type: ['string', 'null'],
    description: 'its message group (docs/api/groups.md), null for none',
  },
  preview: { type: 'string', maxLength: 200, description: 'the first 200 characters of the body' },
};
const timelineEntry = {
  type: 'object',
  required: ['type', 'at'],
  properties: {
    type: {
      type: 'string',
      enum: ['received', 'delivery', 'retry', 'ack', 'dead_letter', 'expired', 'purged'],
    },
    at: integer,
    entrance: { type: 'string' },
    attempt: integer,
    via: { type: 'string', enum: ['pull', 'destination'] },
    status: {
      type: ['integer', 'null'],
      description: "a destination attempt's HTTP status (null: no answer)",
    },
    duration_ms: integer,
    outcome: { type: 'string', enum: ['ok', 'fail', 'gone'] },
    delay_ms: integer,
    reason: { type: 'string' },
    dead_letter_channel: { type: ['string', 'null'] },
  },
  additionalProperties: false,
};
const replayJob = strict({
  id: { type: 'string' },
  state: {
    type: 'string',
    enum: ['planned', 'queued', 'running', 'done', 'cancelled', 'failed'],
  },
  matched: count('messages the job selected (fixed when it was made)'),
  replayed: count('copies stored so far'),
  started_at: msOrNull,
  finished_at: msOrNull,
  to: { type: 'string' },
  rate_per_second: { type: 'integer', minimum: 1, maximum: 10000 },
});

export const RESULTS = {
  historyList: strict({
    items: { type: 'array', items: strict(historySummary) },
    next_cursor: { type: ['string', 'null'] },
  }),
  historyDetail: strict({
    ...historySummary,
    body: { description: 'the body as stored (JSON, or a string for text, bytes and v8)' },
    content_type: { type: 'string', enum: ['json', 'text', 'bytes', 'v8'] },
    metadata: { type: 'object', additionalProperties: true, description: 'as sent' },
    webhook: {
      type: ['object', 'null'],
      properties: {
        method: { type: 'string' },
        query: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        verified: { type: ['boolean', 'null'] },
      },
    },
    timeline: { type: 'array', items: timelineEntry },
  }),
  replayed: strict({ id: { type: 'string' } }),
  replayJob,
  destinationCreated: strict({
    ...destinationCommon,
    secret: { type: 'string', description: 'whsec_...: only in this answer' },
  }),
  destinationList: strict({ destinations: { type: 'array', items: strict(destinationCommon) } }),
  destination: destinationDetail,
  destinationDeleted: strict({ deleted: { const: true } }),
  destinationAttempts: strict({
    attempts: {
      type: 'array',
      items: strict({
        message_id: { type: 'string' },
        attempt: integer,
        started_at: integer,
        duration_ms: integer,
        status: { type: ['integer', 'null'] },
        error: { type: ['string', 'null'] },
        response_excerpt: { type: 'string' },
      }),
    },
    next_cursor: { type: ['string', 'null'] },
  }),
  send: strict(
    {
      id: {
        type: ['string', 'null'],
        description: "the message's id; with routes, its first copy's (null: no copy stored)",
      },
      routed,
    },
    ['id'],
  ),
  sendBatch: strict(
    {
      ids: { type: 'array', items: { type: ['string', 'null'] } },
      routed: { type: 'array', items: routed, description: 'with routes: per message, its copies' },
    },
    ['ids'],
  ),
  routes: strict({
    routes: {
      type: 'array',
      maxItems: 50,
      items: strict(
        {
          to: { type: 'string', description: 'the target channel' },
          filter: {
            type: 'object',
            additionalProperties: true,
            description: 'a filter (docs/api/filters.md); none: every message',
          },
        },
        ['to'],
      ),
    },
    keep: { type: 'boolean' },
    unmatched: {
      type: 'string',
      description: '"drop", or the channel that gets unmatched messages',
    },
  }),
  routesDeleted: strict({
    deleted: { type: 'boolean', description: 'false: the channel had no routes' },
  }),
  routeTest: strict({
    matched: {
      type: 'array',
      items: integer,
      description: 'the indexes of the routes whose filter the message matches',
    },
    channels: {
      type: 'array',
      items: { type: 'string' },
      description: 'the channels that would get a copy, in order',
    },
  }),
  pull: strict({
    message_backlog_count: count('messages left available after this pull'),
    messages: { type: 'array', items: pulledMessage },
  }),
  ack: strict({ acked_count: integer, retried_count: integer }, ['acked_count']),
  extend: strict({ extended_count: integer }),
  purge: strict({ purged_count: integer }),
  redrive: strict({ moved_count: integer }),
  webhookSignatures: strict({
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  }),
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
  openapi: { type: 'object', additionalProperties: true, description: 'this document' },
  webhookCreated: strict({
    ...webhookCommon,
    url: {
      type: 'string',
      description: 'the absolute webhook URL, with its key: only in this answer',
    },
  }),
  webhookList: strict({
    webhooks: {
      type: 'array',
      items: strict({
        ...webhookCommon,
        last_received_at: { ...msOrNull, description: 'ms since the epoch; null: never' },
        received_count: integer,
        last_refusal: {
          oneOf: [
            strict({
              at: { ...integer, description: 'ms since the epoch' },
              reason: { type: 'string', description: 'the check that failed' },
            }),
            { type: 'null' },
          ],
          description:
            'the last refused delivery (a signature that did not verify, a body over max_webhook_bytes); null: none',
        },
      }),
    },
  }),
  webhookDeleted: strict({ deleted: { const: true } }),
} as const;
