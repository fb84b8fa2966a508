/** A real HTTP receiver on loopback that records each request and answers as the test says. */
import crypto from 'node:crypto';
import http from 'node:http';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** requests being answered now, and the most at once */
  inFlight: number;
  maxInFlight: number;
  answer: (r: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const state: Receiver = {
    url: '',
    received: [],
    inFlight: 0,
    maxInFlight: 0,
    answer: () => ({ status: 200 }),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      state.received.push(r);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      const a = state.answer(r);
      setTimeout(() => {
        state.inFlight--;
        res.writeHead(a.status, a.headers ?? {});
        res.end('answer body');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/in`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

/**
 * Standard Webhooks verification as the spec says, with a tolerance of the test's choosing
 * (the standardwebhooks package's is 5 minutes; the tests check with it too).
 */
export function verifyStandardWebhooks(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
  toleranceS = 300,
): boolean {
  const id = String(headers['webhook-id']);
  const ts = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceS) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = crypto
    .createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))
    .digest('base64');
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}
