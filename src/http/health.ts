/** Liveness and readiness, without auth, cheap: the envelope with result.status, 200 or 503. */
import { Router, type Response } from 'express';
import type { Relay } from '../relay';
import { resource } from '../web/route';

function answer(res: Response, ok: boolean, status: string, problem = ''): void {
  res.status(ok ? 200 : 503).json({
    success: ok,
    errors: ok ? [] : [{ code: 503, message: problem }],
    messages: [],
    result: { status },
  });
}

export function healthRouter(relay: Relay, isShuttingDown: () => boolean): Router {
  const router = Router();
  resource(router, '/healthz', {
    get: (_req, res) => answer(res, true, 'ok'),
  });
  resource(router, '/readyz', {
    get: async (_req, res) => {
      if (isShuttingDown())
        return answer(res, false, 'shutting_down', 'the server is shutting down');
      if (!(await relay.ping()))
        return answer(res, false, 'redis_unavailable', 'Redis is unreachable');
      answer(res, true, 'ready');
    },
  });
  return router;
}
