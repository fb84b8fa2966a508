/** Path parameters of the HTTP API, checked as the relay names them. */
import type { Request } from 'express';
import { invalidField } from '../errors';
import { describeIdRule, isValidId } from '../schemas/ids';

/** The :channelId of the path, or invalid_field naming the rule. */
export function channelParam(req: Request): string {
  const channel = String(req.params.channelId);
  if (!isValidId(channel)) throw invalidField(describeIdRule('channelId'));
  return channel;
}
