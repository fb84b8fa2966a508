/** What the endpoint asks of a protocol: the action a request names, its input, and answers. */
import type { ServerResponse } from 'node:http';
import type { SqsAction } from '../context';
import type { SqsError } from '../errors';
import type { Input } from '../params';

export type ProtocolName = 'json' | 'query';

export interface ProtocolRequest {
  protocol: ProtocolName;
  /** the action as the request names it ('' for none): read before anything is checked, for the log */
  action: string;
  /** the action's handler (InvalidAction, MissingAction or UnsupportedOperation when there is none) */
  handler(): SqsAction;
  /** the action's input in the JSON protocol's shape */
  input(): Input;
  answer(res: ServerResponse, output: Record<string, unknown>, requestId: string): void;
}

/**
 * An answer as SQS sends it, written with Node's own calls, so that a refusal written
 * outside any route (web/refusals.ts) takes the same path.
 */
export function writeAnswer(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const bytes = Buffer.from(body);
  res.writeHead(status, {
    ...headers,
    'x-amzn-RequestId': requestId,
    'Content-Type': contentType,
    'Content-Length': bytes.length,
  });
  res.end(bytes);
}

/** Writes an error in a protocol's shape. */
export type ErrorWriter = (res: ServerResponse, error: SqsError, requestId: string) => void;
