/**
 * The SQS endpoint: `POST /sqs` (and `/sqs/`: the JS SDK appends a slash), the
 * queue URLs below it, and `/` for a request that is SQS's (an `X-Amz-Target:
 * AmazonSQS.*` header or an `Action` parameter: kombu's `sqs://host:port` posts
 * there). Both of SQS's protocols (protocol/): JSON (`X-Amz-Target`) and query
 * (`Action=...`, form-encoded, XML answers; also as a GET). Mounted before the
 * relay API's body parser: the body is read raw here (the signature covers its
 * hash), and every answer, errors included, is SQS's shape in the request's
 * protocol, never the relay envelope.
 */
import crypto from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Plans } from '../config';
import { RelayError } from '../errors';
import type { Relay } from '../relay';
import { answerSignal } from '../web/answerSignal';
import { publicBaseUrl } from '../web/publicUrl';
import { announcedOver } from '../web/readBody';
import { refuseInShape } from '../web/refusals';
import { authenticateSqs } from './auth';
import { sqsBodyReader } from './body';
import { sqsCall } from './context';
import { SqsError, invalidParameter, toSqsError } from './errors';
import { isSqsAtRoot, mayBeSqsAtRoot, protocolRequest } from './protocol/detect';
import type { ProtocolRequest } from './protocol/request';
import { ERROR_WRITERS, sqsRefusal } from './refusal';

/**
 * Every path the router may answer (as Express matches them: case-insensitively, with a
 * trailing slash): `/sqs`, below it, and `/`. The app passes it only these (app.ts).
 */
export const SQS_PATH = /^\/(?:sqs(?:\/|$)|\/?$)/i;
/** A queue URL's path: a request posted there names its queue (kombu's ReceiveMessage) */
const QUEUE_PATH = /^\/sqs\/[^/]+\/[^/]+\/?$/;
/** The least request body accepted (what SQS's own 1 MiB batches take, JSON-escaped). */
const MIN_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * The largest request body: a batch of ten messages of the largest plan's
 * max_sqs_message_bytes, each byte encoded at worst as three (form `%XX`, JSON
 * `\uXXXX` escapes), and room for the rest, so that even an oversized batch is
 * read and answered with SQS's error (BatchRequestTooLong).
 */
export function maxSqsRequestBytes(plans: Plans): number {
  const largest = Math.max(...Object.values(plans).map((p) => p.max_sqs_message_bytes));
  return Math.max(MIN_REQUEST_BYTES, 3 * 10 * largest + 1024 * 1024);
}

/** What the request log shows of an SQS request (requestLog.ts): never a body or a secret. */
interface SqsLogFields {
  protocol: ProtocolRequest['protocol'];
  action: string;
  error?: string;
}

/** The request's protocol and action, noted for its log line. */
function noted(res: Response, request: ProtocolRequest): SqsLogFields {
  res.locals.route = '/sqs';
  const log: SqsLogFields = { protocol: request.protocol, action: request.action.slice(0, 64) };
  res.locals.logFields = { sqs: log };
  return log;
}

export function sqsRouter(relay: Relay): Router {
  const router = Router();
  const limit = maxSqsRequestBytes(relay.config.plans);
  const tooLarge = `The request body is over the ${limit}-byte limit.`;
  const raw = sqsBodyReader(limit);
  const requestIdOf = (res: Response) =>
    (res.locals.requestId as string | undefined) ?? crypto.randomUUID();

  function fail(res: Response, request: ProtocolRequest, err: unknown): void {
    const error = toSqsError(err);
    const log = (res.locals.logFields as { sqs?: SqsLogFields } | undefined)?.sqs;
    if (log) log.error = error.code;
    if (error.code === 'InternalFailure') {
      relay.log.error({ err, reqId: res.locals.requestId }, 'unexpected error on the SQS endpoint');
    }
    ERROR_WRITERS[request.protocol](res, error, requestIdOf(res));
  }

  // before the body is read: the server's refusals (a body not in time) in SQS's shape, and
  // a body announced over the limit answered at once, unread
  const beforeBody = (req: Request, res: Response, next: NextFunction) => {
    const request = protocolRequest(req, Buffer.alloc(0));
    refuseInShape(res, sqsRefusal(request.protocol));
    if (!announcedOver(req, limit)) return next();
    noted(res, request);
    fail(res, request, new RelayError('body_too_large', tooLarge, { closeConnection: true }));
  };

  async function serve(req: Request, res: Response): Promise<void> {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const request = protocolRequest(req, body);
    noted(res, request);
    try {
      if (req.method !== 'POST' && !(req.method === 'GET' && request.protocol === 'query')) {
        throw new SqsError(
          'InvalidAction',
          `relayq's SQS endpoint takes POST requests (or GET with the query protocol), not ${req.method}.`,
        );
      }
      const signer = await authenticateSqs(req, body, relay, request.protocol);
      const action = request.handler();
      const input = request.input();
      const baseUrl = () => publicBaseUrl(relay.config, req);
      // posted to a queue URL without QueueUrl: the URL names the queue
      if (input.QueueUrl === undefined && QUEUE_PATH.test(req.path)) {
        input.QueueUrl = `${baseUrl()}${req.path}`;
      }
      const output = await action(
        sqsCall(relay, signer.caller, {
          region: signer.region,
          baseUrl,
          input,
          signal: () => answerSignal(res),
        }),
      );
      request.answer(res, output, requestIdOf(res));
    } catch (err) {
      fail(res, request, err);
    }
  }

  /** Body-reading failures (too large, aborted), answered in the request's protocol. */
  function bodyFailed(err: unknown, req: Request, res: Response): void {
    const request = protocolRequest(req, Buffer.alloc(0));
    noted(res, request);
    const status = (err as { status?: number }).status;
    const error =
      status === 413
        ? new SqsError('RequestEntityTooLarge', tooLarge)
        : status !== undefined && status < 500
          ? invalidParameter('The request body could not be read.')
          : err;
    fail(res, request, error);
  }

  // queue URLs (/sqs/<account>/<queue>) take the same requests: some clients post there
  router.all(['/sqs', '/sqs/*path'], beforeBody, raw, serve);
  router.use('/sqs', (err: unknown, req: Request, res: Response, _next: NextFunction) =>
    bodyFailed(err, req, res),
  );

  // `/` is SQS's only for an SQS request; anything else goes on as before
  router.all('/', (req: Request, res: Response, next: NextFunction) => {
    if (!mayBeSqsAtRoot(req)) return next();
    beforeBody(req, res, () =>
      raw(req, res, (err?: unknown) => {
        if (err) return bodyFailed(err, req, res);
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        if (isSqsAtRoot(req, body)) return void serve(req, res);
        // not SQS's: the relay's body reader (web/body.ts) must not wait for a body already read
        (req as Request & { _body?: boolean })._body = true;
        next();
      }),
    );
  });

  return router;
}
