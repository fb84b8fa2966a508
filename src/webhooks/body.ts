/**
 * Reads a webhook request's body as the exact bytes received (no decoding,
 * no decompression: a signature covers the bytes as sent), up to the plan's
 * max_webhook_bytes. One byte over is a 413 before anything is stored.
 */
import type { Request } from 'express';
import { AppError } from '../errors';
import { readBodyBytes } from '../http/readBody';

function tooLarge(limit: number): AppError {
  // The connection is closed after the answer: the rest of the body is not read.
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `webhook request body is over the plan's ${limit}-byte limit (max_webhook_bytes)`,
    { Connection: 'close' },
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
