/** What one entry of the OpenAPI document says about one endpoint and method. */

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: a relay or owner token (`bearer`), an owner token or a
 * dashboard session (`owner`), the operator's admin token (`admin`), a
 * dashboard session cookie (`session`), or anyone (`none`).
 */
export type Access = 'bearer' | 'owner' | 'admin' | 'session' | 'none';

export interface Operation {
  operationId: string;
  method: Method;
  /** OpenAPI form: `/v1/relay/channels/{channelId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Query parameters (path parameters come from the path's `{name}`s). */
  query?: { name: string; required: boolean; description: string; schema: object }[];
  /** The request body's JSON Schema: the very object the server validates with. */
  request?: object;
  /** The request body's media type, when not JSON (a webhook's body is any bytes). */
  requestMediaType?: string;
  /** The request body may be left out (default: required). */
  requestOptional?: boolean;
  /**
   * The schema of the envelope's `result` on success (HTTP 200); null for a
   * WebSocket upgrade; 'none' for a method that only refuses (405).
   */
  result: object | null | 'none';
  /** Error statuses this endpoint answers besides those every endpoint of its access has. */
  errors: number[];
  /** Answered as is, not inside the envelope (the document itself). */
  raw?: boolean;
  example: { request?: unknown; result?: unknown };
}

/** Every status the relay answers, and what it means. */
export const STATUS_MEANINGS: Record<number, string> = {
  400: 'the request is invalid; the message names the field or limit. Nothing changed.',
  401: 'missing, malformed, unknown, revoked or expired token',
  403: 'the token may not do this (channel scope, role, or a plan limit: storage, channels, tokens)',
  404: 'no such channel, account, token or endpoint',
  405: 'the path exists but not with this method (see the Allow header)',
  408: 'the request body did not arrive whole within RELAY_BODY_TIMEOUT_MS of the headers: nothing was done; the connection is closed',
  409: 'the resource already exists',
  413: 'the request or a message is over its size limit',
  415: 'the request body is in a Content-Encoding the relay does not support (identity, gzip, deflate, br)',
  429: "rate limit exceeded (the account's or token's request rate, or its WebSocket or long-poll places): nothing was done; retry after the Retry-After header (seconds)",
  500: 'unexpected error: the request may be retried',
  503: 'the queue store is unavailable (or the server is shutting down): the request had no effect, or, when the message says the store did not answer, may have taken effect; either way it may be retried (a send with a dedup_id is stored once)',
};

/** Statuses every operation of an access may answer, whatever the endpoint. */
export const COMMON_ERRORS: Record<Access, number[]> = {
  // 429: the account's (or token's) request rate, counted for every authenticated call.
  // 413 and 415: a body is read whatever the method (a GET's too): too large, or in an
  // unsupported Content-Encoding.
  bearer: [400, 401, 403, 413, 415, 429, 500, 503],
  owner: [400, 401, 403, 413, 415, 429, 500, 503],
  // 404: the operator API is off (no RELAY_ADMIN_TOKEN); 429: RELAY_ADMIN_RATE_LIMIT_PER_SECOND
  admin: [400, 401, 403, 404, 413, 415, 429, 500, 503],
  session: [400, 401, 403, 413, 415, 429, 500, 503],
  none: [500, 503],
};

/**
 * An operation with a request body may also be refused for its size; any request whose
 * body (even one a GET should not have) does not arrive in time is a 408.
 */
export function errorStatuses(op: Operation): number[] {
  const all = new Set([...COMMON_ERRORS[op.access], ...op.errors, 408]);
  if (op.request && !op.requestMediaType) {
    all.add(400);
    all.add(413);
    all.add(415);
  }
  return [...all].sort((a, b) => a - b);
}
