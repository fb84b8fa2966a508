/**
 * Declares a resource's methods in one place, answers 405 (with Allow) for the
 * others, and wraps results in the envelope. A handler returns its result
 * object, or RawJson when it has already serialised the result.
 */
import type { Request, Response } from 'express';
import { RelayError } from '../errors';
import { okEnvelope } from './envelope';

export class RawJson {
  constructor(readonly resultJson: string) {}
}

/**
 * Writes a 200 with a JSON text: the headers res.json() would set (no ETag: the app
 * disables them), without its per-response work.
 */
function sendJson(res: Response, json: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** A resource's method: its result object, RawJson, or a promise of either. */
export type RouteHandler = (req: Request, res: Response) => Promise<unknown> | unknown;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Where resources are declared: an Express Router, or an EndpointTable (./endpointTable). */
export type Routes = Record<Method | 'all', (path: string, handler: RouteHandler) => unknown>;

export function resource(
  router: Routes,
  path: string,
  handlers: Partial<Record<Method, RouteHandler>>,
): void {
  const allowed = Object.keys(handlers).map((m) => m.toUpperCase());
  for (const [method, handler] of Object.entries(handlers) as [Method, RouteHandler][]) {
    router[method](path, async (req: Request, res: Response) => {
      res.locals.route = path;
      const result = await handler(req, res);
      if (res.headersSent) return;
      sendJson(
        res,
        result instanceof RawJson
          ? `{"success":true,"errors":[],"messages":[],"result":${result.resultJson}}`
          : JSON.stringify(okEnvelope(result)),
      );
    });
  }
  router.all(path, (req: Request, res: Response) => {
    res.locals.route = path;
    throw new RelayError(
      'method_not_allowed',
      `method ${req.method} is not allowed here; use ${allowed.join(', ')}`,
      { allow: allowed },
    );
  });
}
