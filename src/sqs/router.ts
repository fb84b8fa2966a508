/**
 * The SQS endpoint: `POST /sqs` (and `/sqs/`: the JS SDK appends a slash)
 * with `Content-Type: application/x-amz-json-1.0` and `X-Amz-Target:
 * AmazonSQS.<Action>`, and the same on the queue URLs below it. Mounted before
 * the relay API's body parser: the body is read raw here (the signature covers
 * its hash), and every answer, errors included, is SQS's shape, never the
 * relay envelope.
 */
import crypto from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { RelayError } from '../errors';
import type { Relay } from '../relay';
import { publicBaseUrl } from '../web/publicUrl';
import { actionFor } from './actions';
import { authenticateSqs } from './auth';
import { announcedOver } from '../web/readBody';
import { refuseInShape } from '../web/refusals';
import { sqsCall } from './context';
import { SqsError, invalidParameter, toSqsError } from './errors';
import { sqsRefusal } from './refusal';
import type { Input } from './params';

/** A batch of ten 128 KB messages, JSON-escaped, fits. */
export const MAX_SQS_REQUEST_BYTES = 4 * 1024 * 1024;
const TOO_LARGE = `The request body is over the ${MAX_SQS_REQUEST_BYTES}-byte limit.`;
/** sent as SQS sends it (a Buffer body keeps Express from adding a charset) */
const CONTENT_TYPE = 'application/x-amz-json-1.0';

function parseInput(body: Buffer): Input {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw invalidParameter('The request body is not valid UTF-8 JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParameter('The request body must be a JSON object.');
  }
  return value as Input;
}

function sendError(res: Response, err: unknown, logger: Logger, requestId: string): void {
  const error = toSqsError(err);
  if (error.code === 'InternalFailure') {
    logger.error({ err, reqId: res.locals.requestId }, 'unexpected error on the SQS endpoint');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .status(error.status)
    .set(error.headers)
    .set('x-amzn-RequestId', requestId)
    .set('x-amzn-query-error', error.queryError)
    .set('Content-Type', CONTENT_TYPE)
    .send(Buffer.from(JSON.stringify(error.body)));
}

export function sqsRouter(relay: Relay): Router {
  const router = Router();
  const raw = express.raw({ type: () => true, limit: MAX_SQS_REQUEST_BYTES });
  // before the body is read: the server's refusals (a body not in time) in SQS's shape, and
  // a body announced over the limit answered at once, unread
  const beforeBody = (req: Request, res: Response, next: NextFunction) => {
    refuseInShape(res, sqsRefusal);
    if (announcedOver(req, MAX_SQS_REQUEST_BYTES))
      sqsRefusal(res, new RelayError('body_too_large', TOO_LARGE, { closeConnection: true }));
    else next();
  };

  // queue URLs (/sqs/<account>/<queue>) take the same requests: some clients post there
  router.all(['/sqs', '/sqs/*path'], beforeBody, raw, async (req: Request, res: Response) => {
    res.locals.route = '/sqs';
    const requestId = crypto.randomUUID();
    try {
      if (req.method !== 'POST') {
        throw new SqsError(
          'InvalidAction',
          `relayq's SQS endpoint takes POST requests, not ${req.method}.`,
        );
      }
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signer = await authenticateSqs(req, body, relay);
      const action = actionFor(req.headers['x-amz-target']);
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      if (res.closed) gone.abort();
      const output = await action(
        sqsCall(relay, signer.caller, {
          region: signer.region,
          baseUrl: publicBaseUrl(relay.config, req),
          input: parseInput(body),
          signal: gone.signal,
        }),
      );
      res
        .status(200)
        .set('x-amzn-RequestId', requestId)
        .set('Content-Type', CONTENT_TYPE)
        .send(Buffer.from(JSON.stringify(output)));
    } catch (err) {
      sendError(res, err, relay.log, requestId);
    }
  });

  // body-reading failures (too large, aborted) also answer in SQS's shape
  router.use('/sqs', (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    const error =
      status === 413
        ? new SqsError('RequestEntityTooLarge', TOO_LARGE)
        : status !== undefined && status < 500
          ? invalidParameter('The request body could not be read.')
          : err;
    sendError(res, error, relay.log, crypto.randomUUID());
  });

  return router;
}
