/** The raw query string of a request (what webhooks record and SQS's query protocol reads). */
import type { Request } from 'express';

/** The query string of the request's URL, without the '?' ('' when none). */
export function searchOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at + 1);
}
