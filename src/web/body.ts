/**
 * Request bodies: read as raw bytes whatever Content-Type says (so that
 * `curl -d '{"body":1}'` works), then decoded as strict UTF-8 and parsed as
 * JSON here, with nesting and number range checked. Every failure is a 400
 * (or 413 over the size limit) in the envelope.
 */
import express, { type Request, type RequestHandler } from 'express';
import { RelayError, invalidRequest } from '../errors';
import { LIMITS } from '../schemas/requests';
import { announcedOver, readBodyBytes } from './readBody';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** body-parser's reader, for the compressed bodies it inflates (and their errors). */
const inflatingReader: RequestHandler = express.raw({
  type: () => true,
  limit: LIMITS.maxRequestBytes,
});

type BodyRequest = Request & { _body?: boolean };

/**
 * Reads the body as bytes into req.body (a Buffer; undefined when the request has none).
 * A body whose Content-Length announces more than the limit (compressed or not) is a 413
 * at once, unread, and its connection closes after the answer. A plain body is read here,
 * with the checks body-parser makes (a body cut short is a 400), without its per-request
 * work; a body with a Content-Encoding goes through body-parser, which inflates it. A
 * body found over the limit while reading is read off before the error is answered (the
 * body deadline bounds that).
 */
export const rawBody: RequestHandler = (req: BodyRequest, res, next) => {
  if (req._body) return next();
  if (announcedOver(req, LIMITS.maxRequestBytes)) return next(tooLarge(true));
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return inflatingReader(req, res, next);
  }
  if (
    req.headers['content-length'] === undefined &&
    req.headers['transfer-encoding'] === undefined
  ) {
    req._body = true;
    return next();
  }
  readBodyBytes(req, LIMITS.maxRequestBytes, () => tooLarge()).then(
    (body) => {
      req._body = true;
      req.body = body;
      next();
    },
    (err: unknown) => dumpBody(req, () => next(err)),
  );
};

const tooLarge = (closeConnection = false) =>
  new RelayError(
    'body_too_large',
    `request body is over the ${LIMITS.maxRequestBytes}-byte limit`,
    { closeConnection },
  );

/** Reads off the rest of a refused body (so the answer is not cut short), then calls done. */
export function dumpBody(req: Request, done: () => void): void {
  if (req.readableEnded || req.destroyed) return done();
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    done();
  };
  req.on('end', once);
  req.on('close', once);
  req.resume();
}

/** Throws a 400 if the value nests deeper than maxDepth or holds a number JSON cannot carry. */
function inspect(value: unknown, depth: number): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw invalidRequest('request body holds a number too large to represent');
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth > LIMITS.maxJsonDepth) {
    throw invalidRequest(`request body is nested deeper than ${LIMITS.maxJsonDepth} levels`);
  }
  if (Array.isArray(value)) {
    for (const item of value) inspect(item, depth + 1);
  } else {
    for (const key of Object.keys(value))
      inspect((value as Record<string, unknown>)[key], depth + 1);
  }
}

/** The request's JSON body and its text, or undefined when there is none. */
export function parsedBody(buffer: unknown): { value: unknown; text: string } | undefined {
  if (!Buffer.isBuffer(buffer) || buffer.length === 0) return undefined;
  let text: string;
  try {
    text = decoder.decode(buffer);
  } catch {
    throw invalidRequest('request body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest('request body is not valid JSON');
  }
  inspect(value, 1);
  return { value, text };
}

/** The request's JSON body, or undefined when there is none. */
export function jsonBody(buffer: unknown): unknown {
  return parsedBody(buffer)?.value;
}

/**
 * The body as a JSON object ({} when absent) and its text ('{}' when absent); anything
 * else is a 400.
 */
export function objectBodyText(buffer: unknown): { value: Record<string, unknown>; text: string } {
  const parsed = parsedBody(buffer);
  if (parsed === undefined) return { value: {}, text: '{}' };
  const { value, text } = parsed;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidRequest('request body must be a JSON object');
  }
  return { value: value as Record<string, unknown>, text };
}

/** The body as a JSON object ({} when absent); anything else is a 400. */
export function objectBody(buffer: unknown): Record<string, unknown> {
  return objectBodyText(buffer).value;
}

/** The Content-Encodings a body may come in (body-parser inflates them while reading). */
export const BODY_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'];

/**
 * Maps body-parser's errors (size, encoding, aborted) to envelope errors.
 * `contentEncoding` is the request's, to name what failed to decompress.
 */
export function bodyParserError(err: unknown, contentEncoding?: string): RelayError | null {
  const e = err as { type?: string; status?: number; code?: unknown; errno?: unknown };
  if (!e || typeof e !== 'object') return null;
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR, brotli's ERR__ERROR_*), passed on as 400s
  if (typeof e.type !== 'string' && typeof e.errno === 'number' && typeof e.code === 'string') {
    if (BODY_ENCODINGS.includes(encoding) && encoding !== 'identity') {
      return invalidRequest(`request body is not valid ${encoding} data`);
    }
    return null;
  }
  if (typeof e.type !== 'string') return null;
  switch (e.type) {
    case 'entity.too.large':
      // (for a compressed body, counted while inflating: a bomb stops at the limit)
      return new RelayError(
        'body_too_large',
        `request body is over the ${LIMITS.maxRequestBytes}-byte limit${encoding === 'identity' ? '' : ' once decompressed'}`,
      );
    case 'encoding.unsupported':
      return new RelayError(
        'unsupported_media_type',
        `Content-Encoding ${JSON.stringify(encoding.slice(0, 100))} is not supported; use ${BODY_ENCODINGS.join(', ')}`,
      );
    case 'charset.unsupported':
      return invalidRequest(
        'request body encoding is not supported; send plain or gzip-encoded UTF-8 JSON',
      );
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return invalidRequest('request body was incomplete');
    default:
      return e.status && e.status >= 400 && e.status < 500
        ? invalidRequest('request body could not be read')
        : null;
  }
}
