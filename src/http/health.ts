/** Liveness and readiness, without auth, cheap. */
import { Router } from 'express';
import { okEnvelope } from '../errors';
import type { HttpDeps } from './context';

export function healthRouter(deps: HttpDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    res.status(200).json(okEnvelope({ status: 'ok' }));
  });
  router.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    if (deps.isShuttingDown()) {
      res
        .status(503)
        .json({
          ...okEnvelope({ status: 'shutting_down' }),
          success: false,
          errors: [{ code: 503, message: 'shutting down' }],
        });
      return;
    }
    if (!(await deps.store.ping())) {
      res
        .status(503)
        .json({
          ...okEnvelope({ status: 'redis_unavailable' }),
          success: false,
          errors: [{ code: 503, message: 'Redis is unreachable' }],
        });
      return;
    }
    res.status(200).json(okEnvelope({ status: 'ready' }));
  });
  return router;
}
