/**
 * One attempt: an HTTP request to a destination. Redirects are not followed, the answer is
 * read up to 64 KB, and one timer covers the whole exchange. Unless private addresses are
 * allowed, the address actually connected to is checked (in the DNS lookup the socket makes,
 * and for an IP literal before connecting), so that a name that resolves, or later rebinds,
 * to loopback, a private network, link-local or a cloud metadata address is refused without
 * connecting.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export const RESPONSE_LIMIT = 64 * 1024;

const PRIVATE = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** True for loopback, private, link-local, metadata and other non-public addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

export class RefusedPrivate extends Error {
  readonly code = 'refused_private';
  constructor(readonly address: string) {
    super(`refused_private: ${address} is a private address (RELAY_DESTINATIONS_ALLOW_PRIVATE)`);
  }
}

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
  /** a keep-alive agent for the URL's protocol (the pod's, one per protocol); none: a new connection */
  agent?: http.Agent;
}

export interface AttemptAnswer {
  status: number | null;
  /** Retry-After in ms, when the answer had one */
  retryAfterMs: number | null;
  /** the first 1 KB of the answer's body, as text */
  excerpt: string;
  /** what failed without an answer, one line */
  error: string | null;
  result: 'success' | 'http_4xx' | 'http_5xx' | 'timeout' | 'connection' | 'refused_private';
}

/** Retry-After as seconds or an HTTP date, in ms from now (null when absent or unreadable). */
export function retryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as dns.LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (refused) return (callback as (e: Error) => void)(new RefusedPrivate(refused.address));
      if ((options as { all?: boolean }).all)
        return (callback as never as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

export function sendAttempt(r: OutgoingRequest): Promise<AttemptAnswer> {
  return new Promise((resolve) => {
    const url = new URL(r.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const fail = (err: Error & { code?: string }, timedOut: boolean) => {
      const refused = err instanceof RefusedPrivate;
      resolve({
        status: null,
        retryAfterMs: null,
        excerpt: '',
        error: timedOut ? `no response within ${r.timeoutMs} ms` : err.message.split('\n')[0],
        result: refused ? 'refused_private' : timedOut ? 'timeout' : 'connection',
      });
    };
    if (!r.allowPrivate && net.isIP(host) !== 0 && isPrivateAddress(host)) {
      fail(new RefusedPrivate(host), false);
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    let timedOut = false;
    let done = false;
    const withBody = r.method !== 'GET' && r.method !== 'HEAD';
    const req = lib.request(url, {
      method: r.method,
      headers: withBody ? { ...r.headers, 'content-length': String(r.body.length) } : r.headers,
      lookup: guardedLookup(r.allowPrivate),
      agent: r.agent ?? false,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, r.timeoutMs);
    const finish = (answer: AttemptAnswer | null, err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (answer) resolve(answer);
      else if (
        req.reusedSocket &&
        !timedOut &&
        ['ECONNRESET', 'EPIPE'].includes((err as NodeJS.ErrnoException | undefined)?.code ?? '')
      ) {
        // the receiver closed a kept-alive connection as it was reused: once more, on a new one
        resolve(sendAttempt({ ...r, agent: undefined }));
      } else fail(err ?? new Error('failed'), timedOut);
    };
    req.on('socket', (socket) => {
      // the address connected to, whatever resolved it (a kept-alive socket: checked again)
      const check = () => {
        const address = socket.remoteAddress ?? '';
        if (!r.allowPrivate && isPrivateAddress(address)) req.destroy(new RefusedPrivate(address));
      };
      if (socket.connecting) socket.once('connect', check);
      else check();
    });
    req.on('error', (err) => finish(null, err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      const end = () => {
        const excerpt = Buffer.concat(chunks).subarray(0, 1024).toString('utf8');
        finish({
          status,
          retryAfterMs: retryAfterMs(res.headers['retry-after'], Date.now()),
          excerpt,
          error: null,
          result:
            status >= 200 && status < 300 ? 'success' : status >= 500 ? 'http_5xx' : 'http_4xx',
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_LIMIT) chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_LIMIT) {
          // read no further: this connection is not reused
          end();
          res.destroy();
        }
      });
      res.on('end', end);
      res.on('error', (err) => finish(null, err));
    });
    req.end(withBody ? r.body : undefined);
  });
}
