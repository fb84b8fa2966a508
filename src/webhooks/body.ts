/**
 * Reads a webhook request's body as the exact bytes received (no decoding,
 * no decompression: a signature covers the bytes as sent), up to the plan's
 * max_webhook_bytes. One byte over is a 413 before anything is stored.
 */
import type { Request } from 'express';
import { AppError, badRequest } from '../errors';

function tooLarge(limit: number): AppError {
  // The connection is closed after the answer: the rest of the body is not read.
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `webhook request body is over the plan's ${limit}-byte limit (max_webhook_bytes)`,
    { Connection: 'close' },
  );
}

export function readExactBody(req: Request, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (err: AppError | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
      req.off('close', onClose);
      if (err) {
        req.pause();
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, received));
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onAborted = () => finish(badRequest('request body was incomplete'));
    // closed before its end: the sender went away (settled already when it ended)
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onAborted);
    req.on('close', onClose);
  });
}
