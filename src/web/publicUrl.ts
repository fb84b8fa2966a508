/**
 * The service's public address, the base of the URLs it hands out (webhook
 * URLs, SQS queue URLs): RELAY_PUBLIC_URL when set, otherwise the request's own
 * scheme and host, where forwarded ones count only behind a trusted proxy
 * (RELAY_TRUST_PROXY: Express's req.protocol and req.host honour it).
 */
import type { Request } from 'express';
import type { Config } from '../config';

export function publicBaseUrl(config: Pick<Config, 'publicUrl'>, req: Request): string {
  return config.publicUrl ?? `${req.protocol}://${req.host}`;
}
