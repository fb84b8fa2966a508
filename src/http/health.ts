/** Liveness and readiness, without auth, cheap: the envelope with result.status, 200 or 503. */
import { Router, type Response } from 'express';
import type { HttpDeps } from './context';

function answer(res: Response, ok: boolean, status: string, problem = ''): void {
  res.status(ok ? 200 : 503).json({
    success: ok,
    errors: ok ? [] : [{ code: 503, message: problem }],
    messages: [],
    result: { status },
  });
}

export function healthRouter(deps: HttpDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    answer(res, true, 'ok');
  });
  router.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    if (deps.isShuttingDown())
      return answer(res, false, 'shutting_down', 'the server is shutting down');
    if (!(await deps.store.ping()))
      return answer(res, false, 'redis_unavailable', 'Redis is unreachable');
    answer(res, true, 'ready');
  });
  return router;
}
