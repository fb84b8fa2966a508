/**
 * Request ids (echoing a sane X-Request-Id), one structured log line per
 * request, and the request duration histogram by route template. Never logs a
 * token, a header value or a body (the client address is Express's req.ip).
 */
import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId =
      typeof given === 'string' && SANE_ID.test(given) ? given : crypto.randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (res.locals.route as string | undefined) ?? 'unmatched';
      metrics.httpDuration.observe(
        { method: req.method, route, status: String(res.statusCode) },
        seconds,
      );
      logger.info(
        {
          reqId: requestId,
          method: req.method,
          route,
          status: res.statusCode,
          ms: Math.round(seconds * 1000),
          // the client's address: X-Forwarded-For only from the proxies RELAY_TRUST_PROXY names
          client: req.ip,
          // what an entrance adds to its requests' lines (the SQS action, protocol and error)
          ...(res.locals.logFields as Record<string, unknown> | undefined),
        },
        'request',
      );
    });
    next();
  };
}
