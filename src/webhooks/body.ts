/**
 * Reads a webhook request's body as the exact bytes received (no decoding,
 * no decompression: a signature covers the bytes as sent), up to the plan's
 * max_webhook_bytes. One byte over is a 413 before anything is stored.
 */
import type { Request } from 'express';
import { RelayError } from '../errors';
import { readBodyBytes } from '../web/readBody';

function tooLarge(limit: number): RelayError {
  // The connection is closed after the answer: the rest of the body is not read.
  return new RelayError(
    'body_too_large',
    `webhook request body is over the plan's ${limit}-byte limit (max_webhook_bytes)`,
    { closeConnection: true },
  );
}

export async function readExactBody(req: Request, limit: number): Promise<Buffer> {
  try {
    return await readBodyBytes(req, limit, () => tooLarge(limit));
  } catch (err) {
    req.pause();
    throw err;
  }
}
