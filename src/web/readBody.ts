/**
 * Reads a request's body as the bytes received, up to a limit: over it (announced by
 * Content-Length, or counted while reading) is the caller's 413; a body cut short is a
 * 400. Used for plain relay API bodies (src/web/body.ts) and webhook bodies, which are
 * kept exactly as sent (src/webhooks/body.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { type RelayError, invalidRequest } from '../errors';

/** True when the request's Content-Length announces a body over limit bytes. */
export function announcedOver(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && Number(declared) > limit;
}

export function readBodyBytes(
  req: Request,
  limit: number,
  tooLarge: () => RelayError,
): Promise<Buffer> {
  if (announcedOver(req, limit)) return Promise.reject(tooLarge());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (err: RelayError | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onAborted = () => finish(invalidRequest('request body was incomplete'));
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
