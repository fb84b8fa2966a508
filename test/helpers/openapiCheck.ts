/**
 * Every response of a test app checked against the OpenAPI document: the
 * path and method must be documented (or the answer must be the generic 404
 * or 405 envelope), the status must be one of the operation's, and the body
 * must match its schema. Mismatches are collected here and fail the test
 * they happened in (test/helpers/openapiSetup.ts), so a change that makes the
 * document lie fails `npm test`.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import express, { type NextFunction, type Request, type Response } from 'express';
import { buildOpenApi } from '../../src/openapi/document';
import type { HttpHandler } from '../../src/web/endpointTable';

/**
 * Surfaces outside this contract: the dashboard's pages and assets (its JSON
 * API is in it) and the site icon, and the SQS endpoint, which speaks AWS's
 * protocol (docs/sqs.md), also at `/` (an SQS request there is marked with the
 * route '/sqs').
 */
const OUTSIDE = [/^\/dashboard(?!\/api\/)/, /^\/favicon\.ico$/, /^\/sqs(\/|$)/];

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
  components: { responses: Record<string, unknown> };
};

interface Route {
  template: string;
  pattern: RegExp;
  methods: Record<string, Record<string, string>>;
}

const doc = buildOpenApi() as unknown as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: false });
ajv.addSchema(doc, 'doc');
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();
const validator = (ref: string) => {
  let fn = compiled.get(ref);
  if (!fn) {
    fn = ajv.compile({ $ref: ref });
    compiled.set(ref, fn);
  }
  return fn;
};
const ERROR_ENVELOPE = 'doc#/components/schemas/ErrorEnvelope';

/** Each documented path with, per method and status, the $ref of its JSON body schema. */
const routes: Route[] = Object.entries(doc.paths).map(([template, operations]) => {
  const methods: Route['methods'] = {};
  for (const [method, op] of Object.entries(operations)) {
    methods[method] = {};
    for (const [status, response] of Object.entries(op.responses)) {
      methods[method][status] = response.$ref
        ? `doc${response.$ref}/content/application~1json/schema`
        : `doc#/${pointer('paths', template, method, 'responses', status)}/content/application~1json/schema`;
    }
  }
  const source = template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+');
  return { template, pattern: new RegExp(`^${source}/?$`), methods };
});

const problems: string[] = [];

/** The mismatches found since the last call. */
export function takeProblems(): string[] {
  return problems.splice(0);
}

function check(method: string, path: string, status: number, type: string, body: string): void {
  const where = `${method.toUpperCase()} ${path} -> ${status}`;
  if (OUTSIDE.some((re) => re.test(path)) || method === 'head' || method === 'options') return;
  const route = routes.find((r) => r.pattern.test(path));
  let ref: string | undefined;
  if (!route) {
    // a body is read before the route is known: too large (413) or not in time (408)
    if (![400, 404, 408, 413].includes(status))
      return void problems.push(`${where}: undocumented path`);
    ref = ERROR_ENVELOPE;
  } else if (!route.methods[method]) {
    // 405 (with Allow); 400 when the path itself is not valid percent-encoding
    if (![400, 404, 405, 408, 413].includes(status))
      return void problems.push(`${where}: undocumented method of ${route.template}`);
    ref = ERROR_ENVELOPE;
  } else {
    ref = route.methods[method][String(status)];
    if (!ref) return void problems.push(`${where}: status not documented for ${route.template}`);
  }
  if (!/^application\/json/.test(type))
    return void problems.push(`${where}: content type ${type || 'none'}, documented JSON`);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return void problems.push(`${where}: body is not JSON: ${body.slice(0, 80)}`);
  }
  const validate = validator(ref);
  if (!validate(value)) {
    const e = validate.errors?.[0];
    problems.push(
      `${where}: body does not match the document at ${e?.instancePath || '/'}: ${e?.message} (${JSON.stringify(e?.params)})`,
    );
  }
}

/** Records what a response sends and checks it once finished. */
function responseCheck(req: Request, res: Response, next: NextFunction): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8';
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, enc));
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return (end as (...a: unknown[]) => Response)(chunk, ...rest);
  }) as Response['end'];
  const path = (req.originalUrl ?? req.url).split('?')[0];
  res.on('finish', () =>
    res.locals.route === '/sqs'
      ? undefined
      : check(
          req.method.toLowerCase(),
          path,
          res.statusCode,
          String(res.getHeader('content-type') ?? ''),
          Buffer.concat(chunks).toString('utf8'),
        ),
  );
  next();
}

/** The app behind a first layer that checks every response against the document. */
export function withResponseCheck(app: HttpHandler): HttpHandler {
  const outer = express();
  outer.disable('x-powered-by');
  outer.disable('etag');
  outer.set('query parser', 'simple');
  outer.use(responseCheck);
  outer.use(app);
  return outer;
}
