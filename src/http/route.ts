/**
 * Declares a resource's methods in one place, answers 405 (with Allow) for the
 * others, and wraps results in the envelope. A handler returns its result
 * object, or RawJson when it has already serialised the result.
 */
import type { Request, Response, Router } from 'express';
import { AppError, okEnvelope } from '../errors';

export class RawJson {
  constructor(readonly resultJson: string) {}
}

type Handler = (req: Request, res: Response) => Promise<unknown> | unknown;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export function resource(
  router: Router,
  path: string,
  handlers: Partial<Record<Method, Handler>>,
): void {
  const allowed = Object.keys(handlers).map((m) => m.toUpperCase());
  for (const [method, handler] of Object.entries(handlers) as [Method, Handler][]) {
    router[method](path, async (req: Request, res: Response) => {
      res.locals.route = path;
      const result = await handler(req, res);
      if (res.headersSent) return;
      if (result instanceof RawJson) {
        res
          .status(200)
          .type('application/json')
          .send(`{"success":true,"errors":[],"messages":[],"result":${result.resultJson}}`);
      } else {
        res.status(200).json(okEnvelope(result));
      }
    });
  }
  router.all(path, (req: Request, res: Response) => {
    res.locals.route = path;
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `method ${req.method} is not allowed here; use ${allowed.join(', ')}`,
      {
        Allow: allowed.join(', '),
      },
    );
  });
}
