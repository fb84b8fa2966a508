/** The last middlewares: unknown routes (404) and every error, as envelopes. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { RelayError, invalidRequest, notFound } from '../errors';
import { toEnvelope } from './envelope';
import { bodyParserError } from './body';

export const unknownRoute: RequestHandler = (req, _res, next) => {
  const path = req.path.length > 200 ? `${req.path.slice(0, 200)}...` : req.path;
  next(notFound(`no such endpoint: ${req.method} ${path}`));
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let appError: unknown = err;
    if (!(err instanceof RelayError)) {
      const fromBody = bodyParserError(err, req.headers['content-encoding']);
      if (fromBody) appError = fromBody;
      else if (err instanceof URIError || (err as { status?: number })?.status === 400) {
        appError = invalidRequest('request path is not valid percent-encoding');
      }
    }
    if (!(appError instanceof RelayError)) {
      logger.error(
        { err, reqId: res.locals.requestId, route: res.locals.route },
        'unexpected error',
      );
    }
    const { status, body, headers } = toEnvelope(appError);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.set(headers);
    res.status(status).json(body);
    void req;
  };
}
