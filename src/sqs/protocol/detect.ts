/**
 * Which SQS protocol a request speaks: `X-Amz-Target` (or a JSON body) is the
 * JSON protocol; an `Action` parameter, a form body or a GET is the query
 * protocol. A request that says neither is answered in the shape it asked for:
 * XML, unless its content type or body is JSON.
 */
import type { Request } from 'express';
import { searchOf } from '../../web/search';
import { jsonRequest } from './json';
import { queryRequest } from './query';
import { queryParams } from './queryParams';
import type { ProtocolRequest } from './request';

const FORM = 'application/x-www-form-urlencoded';

function contentType(req: Request): string {
  return String(req.headers['content-type'] ?? '').toLowerCase();
}

function speaksJson(req: Request, body: Buffer): boolean {
  if (req.headers['x-amz-target'] !== undefined) return true;
  const type = contentType(req);
  if (type.includes('json')) return true;
  if (type.startsWith(FORM) || req.method === 'GET') return false;
  // no content type, or another one: a body that opens a JSON object asked for JSON
  return body.toString('latin1', 0, 64).trimStart().startsWith('{');
}

/** The request as its protocol reads it. */
export function protocolRequest(req: Request, body: Buffer): ProtocolRequest {
  if (speaksJson(req, body)) return jsonRequest(req.headers['x-amz-target'], body);
  return queryRequest(queryParams(searchOf(req), req.method === 'GET' ? undefined : body));
}

/** Whether a request to `/` may be an SQS request, before its body is read. */
export function mayBeSqsAtRoot(req: Request): boolean {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.startsWith('AmazonSQS.');
  if (req.method === 'GET') return new URLSearchParams(searchOf(req)).has('Action');
  return req.method === 'POST' && contentType(req).startsWith(FORM);
}

/** Whether a request to `/` is an SQS request: the SQS target, or an Action parameter. */
export function isSqsAtRoot(req: Request, body: Buffer): boolean {
  if (typeof req.headers['x-amz-target'] === 'string') return mayBeSqsAtRoot(req);
  return queryParams(searchOf(req), req.method === 'GET' ? undefined : body).has('Action');
}
