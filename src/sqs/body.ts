/**
 * The SQS endpoint's body reader: the bytes as sent (the signature covers their hash). A
 * plain body is read with the relay's own reader (web/readBody.ts), without body-parser's
 * per-request work; a body with a Content-Encoding goes through body-parser, which inflates
 * it. Errors are passed on in body-parser's shape (`status` 413 over the limit, 400 for a
 * body cut short), which the router answers in the request's protocol.
 */
import express, { type RequestHandler } from 'express';
import { RelayError } from '../errors';
import { dumpBody } from '../web/body';
import { readBodyBytes } from '../web/readBody';

/** A reader of bodies up to `limit` bytes into req.body (a Buffer, or unset with no body). */
export function sqsBodyReader(limit: number): RequestHandler {
  const inflating = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return inflating(req, res, next);
    }
    // as body-parser: a request already read, or without a body, has none
    if (req.readableEnded || req.destroyed) return next();
    if (
      req.headers['content-length'] === undefined &&
      req.headers['transfer-encoding'] === undefined
    ) {
      return next();
    }
    readBodyBytes(req, limit, () => new RelayError('body_too_large', 'over the limit')).then(
      (body) => {
        req.body = body;
        next();
      },
      (err: unknown) => {
        const status = err instanceof RelayError && err.code === 'body_too_large' ? 413 : 400;
        // the rest read off first, so that the answer is not cut short
        dumpBody(req, () => next(Object.assign(new Error('request body not read'), { status })));
      },
    );
  };
}
