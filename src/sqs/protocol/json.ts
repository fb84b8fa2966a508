/**
 * SQS's JSON protocol (AWS JSON 1.0, the AWS SDKs' since 2023): `X-Amz-Target:
 * AmazonSQS.<Action>`, the input as a JSON object, answers and errors as JSON
 * (errors with `x-amzn-query-error`, which query-compatible SDKs read).
 */
import { actionFor, targetAction } from '../actions';
import { invalidParameter } from '../errors';
import type { Input } from '../params';
import { writeAnswer, type ErrorWriter, type ProtocolRequest } from './request';

export const JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseInput(body: Buffer): Input {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body));
  } catch {
    throw invalidParameter('The request body is not valid UTF-8 JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParameter('The request body must be a JSON object.');
  }
  return value as Input;
}

export const jsonError: ErrorWriter = (res, error, requestId) =>
  writeAnswer(res, error.status, JSON_CONTENT_TYPE, JSON.stringify(error.body), requestId, {
    ...error.headers,
    'x-amzn-query-error': error.queryError,
  });

export function jsonRequest(target: string | string[] | undefined, body: Buffer): ProtocolRequest {
  return {
    protocol: 'json',
    action: targetAction(target) || (typeof target === 'string' ? target : ''),
    handler: () => actionFor(target),
    input: () => parseInput(body),
    answer(res, output, requestId) {
      writeAnswer(res, 200, JSON_CONTENT_TYPE, JSON.stringify(output), requestId);
    },
  };
}
