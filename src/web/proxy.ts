/**
 * One notion of the client's scheme and address: RELAY_TRUST_PROXY (Express's
 * `trust proxy`) decides whether X-Forwarded-* is believed, for Express's
 * req.secure / req.protocol / req.ip and, through schemeOf, for requests that
 * never reach Express (WebSocket upgrades).
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Express's compiled `trust proxy fn`: is the hop at this address (i-th from us) trusted? */
export type TrustProxy = (address: string | undefined, hop: number) => boolean;

/** 'https' or 'http' as the client used it, as Express's req.protocol computes it. */
export function schemeOf(req: IncomingMessage, trust: TrustProxy): string {
  const own = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  if (!trust(req.socket.remoteAddress, 0)) return own;
  const forwarded = req.headers['x-forwarded-proto'];
  const header = typeof forwarded === 'string' && forwarded !== '' ? forwarded : own;
  return header.split(',')[0].trim();
}
