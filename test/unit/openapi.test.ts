/** The OpenAPI document: valid, committed as generated, built from the server's own schemas, enforced. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import express from 'express';
import request from 'supertest';
import { buildOpenApi } from '../../src/openapi/document';
import { OPERATIONS } from '../../src/openapi/operations';
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
