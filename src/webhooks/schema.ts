/** The body of `POST /v1/relay/channels/{id}/webhooks`, compiled once, and its cross-field rules. */
import { invalidField } from '../errors';
import { compile } from '../schemas/validate';
import type { WebhookGroupBy, WebhookVerify } from '../relay';
import { standardWebhooksKey } from './verify/standardWebhooks';
import { pointerTokens } from './groupBy';

export const SCHEMES = ['github', 'stripe', 'standard-webhooks', 'hmac-sha256'] as const;
export const MAX_LABEL_CHARS = 100;
const MAX_SECRET_CHARS = 1024;

const headerName = { type: 'string', minLength: 1, maxLength: 100 };
// an HTTP header name (RFC 9110 token); checked here for a message that says so
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkHeaderName(value: string | undefined, field: string): void {
  if (value !== undefined && !HEADER_NAME.test(value)) {
    throw invalidField(`${field} must be an HTTP header name, such as X-Request-Id`);
  }
}

export interface CreateWebhookInput {
  label?: string;
  dedup_header?: string;
  group_by?: { header?: string; json_pointer?: string };
  verify?: {
    scheme: WebhookVerify['scheme'];
    secret: string;
    on_failure?: WebhookVerify['on_failure'];
    header?: string;
    encoding?: 'hex' | 'base64';
    prefix?: string;
    dedup_header?: string;
  };
}

export const validateWebhookBody = compile<CreateWebhookInput>({
  type: 'object',
  additionalProperties: false,
  properties: {
    label: { type: 'string', maxLength: MAX_LABEL_CHARS },
    dedup_header: headerName,
    group_by: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      description:
        'the group_id of each delivery: a header, or an RFC 6901 pointer into the JSON body',
      properties: {
        header: headerName,
        json_pointer: { type: 'string', maxLength: 1000 },
      },
    },
    verify: {
      type: 'object',
      required: ['scheme', 'secret'],
      additionalProperties: false,
      properties: {
        scheme: { type: 'string', enum: SCHEMES },
        secret: { type: 'string', minLength: 1, maxLength: MAX_SECRET_CHARS },
        on_failure: { type: 'string', enum: ['reject', 'record'] },
        header: headerName,
        encoding: { type: 'string', enum: ['hex', 'base64'] },
        prefix: { type: 'string', maxLength: 100 },
        dedup_header: headerName,
      },
    },
  },
});

export interface WebhookSettings {
  label: string | null;
  verify: WebhookVerify | null;
  dedup_header: string | null;
  group_by: WebhookGroupBy | null;
}

/** Validates the body; returns the settings to store (header names in lower case). */
export function validateCreateWebhook(body: unknown): WebhookSettings {
  // said plainly, before the schema's "must be at least 1 characters"
  const given = (body as { verify?: { secret?: unknown } } | null)?.verify?.secret;
  if (given === '') throw invalidField('verify.secret is empty');
  const input = validateWebhookBody(body);
  const v = input.verify;
  checkHeaderName(input.dedup_header, 'dedup_header');
  checkHeaderName(input.group_by?.header, 'group_by.header');
  const pointer = input.group_by?.json_pointer;
  if (pointer !== undefined && pointerTokens(pointer) === null) {
    throw invalidField(
      'group_by.json_pointer must be an RFC 6901 JSON pointer, such as /data/object/customer',
    );
  }
  const groupBy: WebhookGroupBy | null =
    input.group_by?.header !== undefined
      ? { header: input.group_by.header.toLowerCase() }
      : pointer !== undefined
        ? { json_pointer: pointer }
        : null;
  checkHeaderName(v?.dedup_header, 'verify.dedup_header');
  checkHeaderName(v?.header, 'verify.header');
  const top = input.dedup_header?.toLowerCase();
  const inner = v?.dedup_header?.toLowerCase();
  if (top !== undefined && inner !== undefined && top !== inner) {
    throw invalidField('dedup_header and verify.dedup_header name different headers; give one');
  }
  const settings: WebhookSettings = {
    label: input.label ?? null,
    verify: null,
    dedup_header: top ?? inner ?? null,
    group_by: groupBy,
  };
  if (!v) return settings;
  if (v.scheme === 'hmac-sha256') {
    if (v.header === undefined) {
      throw invalidField('required field verify.header is missing (scheme hmac-sha256)');
    }
  } else {
    for (const field of ['header', 'encoding', 'prefix'] as const) {
      if (v[field] !== undefined) {
        throw invalidField(`verify.${field} applies only to scheme hmac-sha256`);
      }
    }
  }
  if (v.scheme === 'standard-webhooks' && standardWebhooksKey(v.secret) === null) {
    throw invalidField(
      'verify.secret must be whsec_ followed by the base64 signing key for scheme standard-webhooks',
    );
  }
  settings.verify = {
    scheme: v.scheme,
    secret: v.secret,
    on_failure: v.on_failure ?? 'reject',
  };
  if (v.scheme === 'hmac-sha256') {
    settings.verify.header = v.header!.toLowerCase();
    settings.verify.encoding = v.encoding ?? 'hex';
    settings.verify.prefix = v.prefix ?? '';
  }
  return settings;
}

/** The body of `POST /v1/relay/channels/{id}/webhooks/signatures`: a message as a pull answered it. */
export const validateSignAgain = compile<{
  message: Record<string, unknown> & { id: string; metadata: Record<string, unknown> };
}>({
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: {
    message: {
      type: 'object',
      required: ['id', 'body', 'content_type', 'metadata'],
      properties: {
        id: { type: 'string', maxLength: 64 },
        body: {},
        content_type: { type: 'string', enum: ['json', 'text', 'bytes', 'v8'] },
        metadata: { type: 'object', additionalProperties: true },
      },
    },
  },
});
