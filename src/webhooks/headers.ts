/**
 * Which request headers a webhook message keeps: all but the hop-by-hop ones,
 * those that describe the connection to relayq rather than the delivery
 * (Host, Content-Length, Forwarded, X-Forwarded-*, X-Real-IP), and the
 * credentials a sender might have attached (Cookie, Authorization).
 */
import type { IncomingHttpHeaders } from 'node:http';

const DROPPED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'cookie',
  'authorization',
  'forwarded',
  'x-real-ip',
]);

export function isKeptHeader(name: string): boolean {
  return !DROPPED.has(name) && !name.startsWith('proxy-') && !name.startsWith('x-forwarded-');
}

/** The kept headers, lower-case names; repeated headers joined as Node joins them. */
export function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !isKeptHeader(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
