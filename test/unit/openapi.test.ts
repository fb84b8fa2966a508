/** The OpenAPI document: valid, committed as generated, built from the server's own schemas, enforced. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import express from 'express';
import request from 'supertest';
import { buildOpenApi } from '../../src/openapi/document';
import { OPERATIONS } from '../../src/openapi/operations';
import { openapiRouter } from '../../src/openapi/route';
import { openapiText } from '../../src/openapi/write';
import * as requests from '../../src/schemas/requests';
import type { Validator } from '../../src/schemas/validate';
import { takeProblems, withResponseCheck } from '../helpers/openapiCheck';

test('the document is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
  const result = await validate(structuredClone(buildOpenApi()) as never);
  expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
  expect(buildOpenApi().openapi).toBe('3.1.0');
});

test('openapi.json at the repository root is the generated document (npm run openapi)', () => {
  const committed = readFileSync(path.resolve(__dirname, '../../openapi.json'), 'utf8');
  expect(committed).toBe(openapiText());
});

/** Every schema of the document with its JSON pointer. */
function* schemasOf(node: unknown, at = ''): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasOf(item, `${at}/${i}`);
  } else if (node !== null && typeof node === 'object') {
    yield [at, node as Record<string, unknown>];
    for (const [key, value] of Object.entries(node)) yield* schemasOf(value, `${at}/${key}`);
  }
}

test('no schema is a bare object (generated clients type those as empty objects)', () => {
  const isObject = (type: unknown) =>
    type === 'object' || (Array.isArray(type) && type.includes('object'));
  const bare = [...schemasOf(buildOpenApi())]
    .filter(([, s]) => isObject(s.type))
    .filter(
      ([, s]) => !('properties' in s || 'additionalProperties' in s || 'patternProperties' in s),
    )
    .map(([at]) => at);
  expect(bare).toEqual([]);
  // the free-form ones say so; the empty purge body says it is empty
  const doc = buildOpenApi() as { paths: Record<string, Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const send = doc.paths['/v1/relay/channels/{channelId}/messages'].post;
  expect(send.requestBody.content['application/json'].schema.properties.metadata).toEqual({
    type: 'object',
    additionalProperties: true,
  });
  const purge = doc.paths['/v1/relay/channels/{channelId}/messages/purge'].post;
  expect(purge.requestBody.content['application/json'].schema).toEqual({
    type: 'object',
    additionalProperties: false,
    description: 'an empty object',
  });
});

describe('the served document names the address it was asked at', () => {
  const served = (trustProxy: string | false, publicUrl: string | null = null) => {
    const app = express();
    app.set('trust proxy', trustProxy);
    app.use(openapiRouter({ publicUrl }));
    return request(app);
  };
  const serversOf = (res: request.Response) =>
    (JSON.parse(res.text) as { servers: unknown }).servers;

  test("the request's own scheme and host; X-Forwarded-* only from a trusted proxy", async () => {
    const direct = await served(false)
      .get('/v1/openapi.json')
      .set('Host', 'relay.internal:8080')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'evil.example');
    expect(direct.status).toBe(200);
    expect(serversOf(direct)).toEqual([
      { url: 'http://relay.internal:8080', description: 'this relay' },
    ]);
    const proxied = await served('loopback')
      .get('/v1/openapi.json')
      .set('Host', 'relay.internal:8080')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'relay.example.com');
    expect(serversOf(proxied)).toEqual([
      { url: 'https://relay.example.com', description: 'this relay' },
    ]);
    // the rest of the document is the built one
    const { servers: _servers, ...rest } = JSON.parse(proxied.text);
    const { servers: _built, ...built } = buildOpenApi();
    expect(rest).toEqual(built);
  });

  test('RELAY_PUBLIC_URL when set', async () => {
    const res = await served(false, 'https://queue.example.org').get('/v1/openapi.json');
    expect(serversOf(res)).toEqual([
      { url: 'https://queue.example.org', description: 'this relay' },
    ]);
  });
});

test('request schemas are the very objects the server validates with', () => {
  const validators = (Object.values(requests) as unknown[]).filter(
    (v): v is Validator<unknown> => typeof v === 'function' && 'schema' in v,
  );
  expect(validators.length).toBeGreaterThan(8);
  const documented = new Set(OPERATIONS.map((op) => op.request));
  for (const v of validators) expect(documented.has(v.schema)).toBe(true);
});

test('one entry per method and path, each with a summary, an example and bearer or open access', () => {
  const keys = OPERATIONS.map((op) => `${op.method} ${op.path}`);
  expect(new Set(keys).size).toBe(keys.length);
  const ids = OPERATIONS.map((op) => op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  const doc = buildOpenApi() as { components: { securitySchemes: Record<string, object> } };
  expect(doc.components.securitySchemes.bearerToken).toEqual(
    expect.objectContaining({ type: 'http', scheme: 'bearer' }),
  );
  for (const op of OPERATIONS) expect(op.summary.length).toBeGreaterThan(5);
});

test('every example matches its own schema', () => {
  const ajv = new Ajv2020({ strict: false });
  for (const op of OPERATIONS) {
    if (op.request && op.example.request !== undefined) {
      const ok = ajv.validate(op.request, op.example.request);
      expect([op.operationId, ok, ajv.errors]).toEqual([op.operationId, true, null]);
    }
    if (op.result && op.example.result !== undefined) {
      const ok = ajv.validate(op.result, op.example.result);
      expect([op.operationId, ok, ajv.errors]).toEqual([op.operationId, true, null]);
    }
  }
});

describe('the response check of test apps', () => {
  const envelope = (result: unknown) => ({ success: true, errors: [], messages: [], result });
  const app = express();
  app.get('/v1/relay/whoami', (req, res) => {
    if (req.query.status) {
      res.status(Number(req.query.status)).json({
        success: false,
        errors: [{ code: 418, message: 'x' }],
        messages: [],
        result: null,
      });
    } else {
      const me = { account: 'acme', token_id: 'a', role: 'relay', channels: null, plan: 'free' };
      res.json(envelope({ ...me, expires_ms: null, extra: true }));
    }
  });
  app.post('/v1/relay/channels/:id/messages', (_req, res) => res.json(envelope({ id: 'm1' })));
  app.get('/v1/undocumented', (_req, res) => res.json(envelope({})));
  app.get('/v1/relay/channels/:id/messages', (_req, res) => res.json(envelope({})));
  app.get('/dashboard', (_req, res) => res.type('html').send('<html></html>'));
  const checked = request(withResponseCheck(app));

  afterEach(() => takeProblems());

  test('a documented answer passes', async () => {
    await checked.post('/v1/relay/channels/orders/messages').send({ body: 1 });
    await checked.get('/dashboard');
    expect(takeProblems()).toEqual([]);
  });

  test('a body off its schema, an undocumented status, path or method fail', async () => {
    await checked.get('/v1/relay/whoami');
    await checked.get('/v1/relay/whoami?status=418');
    await checked.get('/v1/undocumented');
    await checked.get('/v1/relay/channels/orders/messages');
    const problems = takeProblems();
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(
      /^GET \/v1\/relay\/whoami -> 200: body does not match the document at \/result: must NOT have additional properties/,
    );
    expect(problems[1]).toBe(
      'GET /v1/relay/whoami -> 418: status not documented for /v1/relay/whoami',
    );
    expect(problems[2]).toBe('GET /v1/undocumented -> 200: undocumented path');
    expect(problems[3]).toBe(
      'GET /v1/relay/channels/orders/messages -> 200: undocumented method of /v1/relay/channels/{channelId}/messages',
    );
  });
});
