/** Request body schemas of every endpoint, compiled once. */
import { ID_PATTERN_SOURCE } from './ids';
import { compile } from './validate';

export const LIMITS = {
  maxDelaySeconds: 86_400,
  minVisibilityMs: 1_000,
  maxVisibilityMs: 43_200_000,
  defaultVisibilityMs: 30_000,
  maxPullBatch: 100,
  defaultPullBatch: 10,
  maxBatchMessages: 100,
  maxLeaseIds: 100,
  maxWaitMs: 20_000,
  maxMessageBytes: 131_072,
  maxRequestBytes: 1_048_576,
  maxDedupIdChars: 128,
  maxGroupIdChars: 128,
  maxAttempts: 100,
  maxDedupWindowSeconds: 86_400,
  defaultDedupWindowSeconds: 300,
  maxRedrive: 100_000,
  defaultRedrive: 1_000,
  maxJsonDepth: 128,
} as const;

export const CONTENT_TYPES = ['json', 'text', 'bytes', 'v8'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

const channelId = { type: 'string', pattern: ID_PATTERN_SOURCE };
const delaySeconds = { type: 'number', minimum: 0, maximum: LIMITS.maxDelaySeconds };
const visibility = {
  type: 'integer',
  minimum: LIMITS.minVisibilityMs,
  maximum: LIMITS.maxVisibilityMs,
};
const leaseIds = {
  type: 'array',
  maxItems: LIMITS.maxLeaseIds,
  items: { type: 'string', maxLength: 256 },
};

/** A message group id (docs/api/groups.md): 1-128 of A-Z a-z 0-9 _ . : / = + @ - */
export const GROUP_ID_PATTERN_SOURCE = '^[A-Za-z0-9_.:/=+@-]{1,128}$';
export const GROUP_ID_PATTERN = new RegExp(GROUP_ID_PATTERN_SOURCE);
export const GROUP_ORDERS = ['strict', 'fair'] as const;
export type GroupOrder = (typeof GROUP_ORDERS)[number];

const messageProperties = {
  body: {},
  content_type: { type: 'string', enum: CONTENT_TYPES },
  delay_seconds: delaySeconds,
  metadata: { type: 'object', additionalProperties: true },
  dedup_id: { type: 'string', minLength: 1, maxLength: LIMITS.maxDedupIdChars },
  group_id: { type: 'string', pattern: GROUP_ID_PATTERN_SOURCE },
};

const messageSchema = {
  type: 'object',
  required: ['body'],
  additionalProperties: false,
  properties: messageProperties,
};

export interface MessageInput {
  body: unknown;
  content_type?: ContentType;
  delay_seconds?: number;
  metadata?: Record<string, unknown>;
  dedup_id?: string;
  group_id?: string;
}

export const validateMessage = compile<MessageInput>(messageSchema);

export const validateBatch = compile<{ messages: MessageInput[]; delay_seconds?: number }>({
  type: 'object',
  required: ['messages'],
  additionalProperties: false,
  properties: {
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.maxBatchMessages,
      items: messageSchema,
    },
    delay_seconds: delaySeconds,
  },
});

export const validatePull = compile<{
  visibility_timeout_ms?: number;
  batch_size?: number;
  wait_ms?: number;
}>({
  type: 'object',
  additionalProperties: false,
  properties: {
    visibility_timeout_ms: visibility,
    batch_size: { type: 'integer', minimum: 1, maximum: LIMITS.maxPullBatch },
    wait_ms: { type: 'integer', minimum: 0, maximum: LIMITS.maxWaitMs },
  },
});

export const validateAck = compile<{
  lease_ids?: string[];
  retries?: { lease_id: string; delay_seconds?: number }[];
}>({
  type: 'object',
  additionalProperties: false,
  properties: {
    lease_ids: leaseIds,
    retries: {
      type: 'array',
      maxItems: LIMITS.maxLeaseIds,
      items: {
        type: 'object',
        required: ['lease_id'],
        additionalProperties: false,
        properties: { lease_id: { type: 'string', maxLength: 256 }, delay_seconds: delaySeconds },
      },
    },
  },
});

export const validateExtend = compile<{ lease_ids: string[]; visibility_timeout_ms?: number }>({
  type: 'object',
  required: ['lease_ids'],
  additionalProperties: false,
  properties: { lease_ids: leaseIds, visibility_timeout_ms: visibility },
});

/** A channel setting in a PUT body: null resets it to its default, like dead_letter_channel. */
const resettable = (schema: Record<string, unknown>) => ({
  ...schema,
  type: [schema.type as string, 'null'],
});

/** A channel's settings as the relay API takes them (PUT channel): each optional. */
export interface ChannelSettingsInput {
  dead_letter_channel?: string | null;
  max_attempts?: number;
  dedup_window_seconds?: number;
  paused?: boolean;
  visibility_timeout_ms?: number | null;
  delay_seconds?: number | null;
  retention_seconds?: number | null;
  receive_wait_seconds?: number | null;
  history_seconds?: number | null;
  /** docs/api/groups.md: 'strict' (the default) or 'fair'; null resets */
  group_order?: GroupOrder | null;
  /** a FIFO channel (an SQS .fifo queue): every message needs a group_id */
  fifo?: boolean;
}

export const validateChannelConfig = compile<ChannelSettingsInput>({
  type: 'object',
  additionalProperties: false,
  properties: {
    dead_letter_channel: { type: ['string', 'null'], pattern: ID_PATTERN_SOURCE },
    max_attempts: { type: 'integer', minimum: 1, maximum: LIMITS.maxAttempts },
    dedup_window_seconds: { type: 'integer', minimum: 1, maximum: LIMITS.maxDedupWindowSeconds },
    paused: { type: 'boolean' },
    visibility_timeout_ms: resettable(visibility),
    delay_seconds: resettable(delaySeconds),
    // The upper bound is the account plan's retention, checked by the handler.
    retention_seconds: resettable({ type: 'integer', minimum: 1 }),
    // the SQS endpoint's default WaitTimeSeconds (ReceiveMessageWaitTimeSeconds)
    receive_wait_seconds: resettable({
      type: 'integer',
      minimum: 0,
      maximum: LIMITS.maxWaitMs / 1000,
    }),
    // 0 turns history off; the upper bound is the plan's max_history_seconds (the handler's)
    history_seconds: resettable({ type: 'integer', minimum: 0 }),
    group_order: { type: ['string', 'null'], enum: [...GROUP_ORDERS, null] },
    fifo: { type: 'boolean' },
  },
});

export const validateRedrive = compile<{ to?: string; max?: number }>({
  type: 'object',
  additionalProperties: false,
  properties: {
    to: channelId,
    max: { type: 'integer', minimum: 1, maximum: LIMITS.maxRedrive },
  },
});

/** POST /v1/relay/channels/{id}/redrive: the channel's dead messages back (docs/api/destinations.md). */
export const validateDeadRedrive = compile<{ max?: number }>({
  type: 'object',
  additionalProperties: false,
  properties: { max: { type: 'integer', minimum: 1, maximum: 10_000 } },
});

export const validateAccountCreate = compile<{ id: string; plan?: string }>({
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: channelId, plan: { type: 'string', minLength: 1, maxLength: 64 } },
});

export const validateAccountPatch = compile<{ plan: string }>({
  type: 'object',
  required: ['plan'],
  additionalProperties: false,
  properties: { plan: { type: 'string', minLength: 1, maxLength: 64 } },
});

/** A token to create, as the account and operator APIs take it. */
export interface TokenInput {
  name?: string;
  channels?: string[];
  expires_in_seconds?: number;
  role?: 'relay' | 'owner';
  rate_limit_per_second?: number;
  aws_credentials?: boolean;
}

export const validateTokenCreate = compile<TokenInput>({
  type: 'object',
  additionalProperties: false,
  properties: {
    rate_limit_per_second: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    aws_credentials: { type: 'boolean' },
    name: { type: 'string', minLength: 1, maxLength: 128 },
    channels: { type: 'array', minItems: 1, maxItems: 100, items: channelId },
    expires_in_seconds: { type: 'integer', minimum: 1, maximum: 10 * 365 * 86_400 },
    role: { type: 'string', enum: ['relay', 'owner'] },
  },
});
