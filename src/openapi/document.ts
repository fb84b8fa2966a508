/**
 * The OpenAPI 3.1 document of the relay, built from OPERATIONS: request
 * schemas are the server's own validation schemas, results come from
 * results.ts, every answer is wrapped in the envelope. Served at
 * GET /v1/openapi.json and committed as openapi.json (npm run openapi).
 * Not in it: the SQS endpoint (POST /sqs), which speaks AWS's own protocol
 * and is described by AWS's API (docs/sqs.md).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ID_PATTERN_SOURCE } from '../schemas/ids';
import { errorStatuses, STATUS_MEANINGS, type Access, type Operation } from './operation';
import { OPERATIONS } from './operations';

/** The server package's version, from its package.json (found from src/ and dist/src/ alike). */
function packageVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (pkg.name === 'relayq') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
  }
  return '0.0.0';
}

const SECURITY: Record<Access, object[]> = {
  bearer: [{ bearerToken: [] }],
  owner: [{ bearerToken: [] }, { dashboardSession: [] }],
  admin: [{ adminToken: [] }],
  session: [{ dashboardSession: [] }],
  none: [],
};

const PARAMETERS: Record<string, object> = {
  channelId: {
    name: 'channelId',
    in: 'path',
    required: true,
    description: 'a channel id: 1 to 128 characters of A-Z a-z 0-9 _ - ., not starting with a dot',
    schema: { type: 'string', pattern: ID_PATTERN_SOURCE },
  },
  accountId: {
    name: 'accountId',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: ID_PATTERN_SOURCE },
  },
  tokenId: {
    name: 'tokenId',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^[0-9a-f]{16}$' },
  },
  webhookId: {
    name: 'webhookId',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^[0-9a-f]{16}$' },
  },
  destinationId: {
    name: 'destinationId',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^dst_[0-9a-f]{16}$' },
  },
  messageId: {
    name: 'messageId',
    in: 'path',
    required: true,
    description: 'a message id (a UUID)',
    schema: { type: 'string', format: 'uuid' },
  },
  replayId: {
    name: 'replayId',
    in: 'path',
    required: true,
    description: 'a replay job id (a UUID)',
    schema: { type: 'string', format: 'uuid' },
  },
  key: {
    name: 'key',
    in: 'path',
    required: true,
    description: "the webhook URL's key, as shown once when the webhook was created",
    schema: { type: 'string' },
  },
};

const json = (schema: object, example?: unknown) => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

const envelopeOf = (result: object) => ({
  allOf: [
    { $ref: '#/components/schemas/SuccessEnvelope' },
    { type: 'object', required: ['result'], properties: { result } },
  ],
});

function operationObject(op: Operation): object {
  const params: object[] = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    $ref: `#/components/parameters/${name}`,
  }));
  for (const q of op.query ?? []) params.push({ in: 'query', ...q });
  const responses: Record<string, object> = {};
  if (op.result === null) {
    responses['101'] = { description: 'Switching Protocols: the WebSocket is open' };
  } else if (op.result !== 'none') {
    const body = op.raw ? op.result : envelopeOf(op.result);
    const example =
      op.example.result === undefined
        ? undefined
        : { success: true, errors: [], messages: [], result: op.example.result };
    responses['200'] = { description: 'success', content: json(body, example) };
  }
  for (const status of errorStatuses(op)) {
    responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  }
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: SECURITY[op.access],
    ...(params.length ? { parameters: params } : {}),
    ...(op.request
      ? {
          requestBody: {
            required: !op.requestOptional,
            content: op.requestMediaType
              ? { [op.requestMediaType]: { schema: op.request } }
              : json(op.request, op.example.request),
          },
        }
      : {}),
    responses,
  };
}

export function buildOpenApi(operations: Operation[] = OPERATIONS): Record<string, unknown> {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of operations) {
    paths[op.path] = { ...paths[op.path], [op.method]: operationObject(op) };
  }
  const responses = Object.fromEntries(
    Object.entries(STATUS_MEANINGS).map(([status, description]) => [
      `E${status}`,
      {
        description,
        ...(status === '429' || status === '503'
          ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } }
          : {}),
        content: json({ $ref: '#/components/schemas/ErrorEnvelope' }),
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'relayq',
      version: packageVersion(),
      summary: 'A self-hostable message relay queue',
      description:
        'HTTP producers, pull consumers with leases, WebSocket notifications. Every JSON answer ' +
        'is the envelope {success, errors, messages, result}; success is always HTTP 200.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://localhost:8080', description: 'a local relay (npm start)' }],
    tags: [
      'messages',
      'channels',
      'routes',
      'subscriptions',
      'history',
      'webhooks',
      'destinations',
      'account',
      'admin',
      'dashboard',
      'service',
    ].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'a relay API token (rq_...): relay tokens, or owner tokens for /v1/account',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: "the operator's RELAY_ADMIN_TOKEN",
        },
        dashboardSession: { type: 'apiKey', in: 'cookie', name: 'relayq_session' },
      },
      parameters: PARAMETERS,
      responses,
      schemas: {
        Error: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: {
            code: { type: 'integer', description: 'the HTTP status' },
            message: { type: 'string', description: 'one sentence naming the field or limit' },
          },
        },
        SuccessEnvelope: {
          type: 'object',
          required: ['success', 'errors', 'messages', 'result'],
          properties: {
            success: { const: true },
            errors: { type: 'array', maxItems: 0 },
            messages: { type: 'array', maxItems: 0 },
            result: {},
          },
        },
        ErrorEnvelope: {
          type: 'object',
          additionalProperties: false,
          required: ['success', 'errors', 'messages', 'result'],
          properties: {
            success: { const: false },
            errors: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Error' } },
            messages: { type: 'array', maxItems: 0 },
            result: { description: "null, except /readyz's {status}" },
          },
        },
      },
    },
  };
}
