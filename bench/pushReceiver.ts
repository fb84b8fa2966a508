/**
 * The receiver of the push benchmarks (bench/push.ts, bench/pushPods.ts): a node:http server
 * on loopback that notes when each request starts (first arrival by message id, every start
 * time), how many are in flight at once (a request ends when its answer is sent or its
 * connection closes: a killed pod's requests end with their sockets), and answers 200, or
 * 500 when `fail` says so, after `delayMs`.
 */
import http from 'node:http';

export interface Receiver {
  url: string;
  /** first arrival time (ms, performance clock) by message id */
  first: Map<string, number>;
  /** ids answered 2xx */
  delivered: Set<string>;
  /** requests answered (500s included) */
  requests: number;
  /** start times (ms, performance clock) of every request, when `recordStarts` is set */
  starts: number[];
  recordStarts: boolean;
  inFlight: number;
  maxInFlight: number;
  /** the sender's port of each request in flight */
  inFlightPorts: Map<http.ServerResponse, number>;
  /** answers 500 when this says so (n: the answer's number, from 1) */
  fail: (n: number) => boolean;
  /** how long each answer waits (ms) */
  delayMs: number;
  close(): Promise<void>;
}

export const now = () => performance.timeOrigin + performance.now();

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    first: new Map(),
    delivered: new Set(),
    requests: 0,
    starts: [],
    recordStarts: false,
    inFlight: 0,
    maxInFlight: 0,
    inFlightPorts: new Map(),
    fail: () => false,
    delayMs: 0,
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const at = now();
    if (r.recordStarts) r.starts.push(at);
    r.inFlight++;
    if (r.inFlight > r.maxInFlight) r.maxInFlight = r.inFlight;
    r.inFlightPorts.set(res, req.socket.remotePort ?? 0);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      r.inFlight--;
      r.inFlightPorts.delete(res);
    };
    res.on('close', end);
    const id = String(req.headers['x-relayq-message-id'] ?? '');
    if (!r.first.has(id)) r.first.set(id, at);
    req.resume();
    req.on('end', () => {
      const answer = () => {
        if (res.destroyed) return;
        r.requests++;
        const failed = r.fail(r.requests);
        if (!failed) r.delivered.add(id);
        // counted as ended from here: the sender may start its next request on this answer
        end();
        res.writeHead(failed ? 500 : 200);
        res.end();
      };
      if (r.delayMs > 0) setTimeout(answer, r.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  r.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

/**
 * The most request starts in any window of `periodMs` (sliding: one window ending at each
 * start), from sorted start times.
 */
export function mostStartsInWindow(starts: number[], periodMs: number): number {
  let most = 0;
  let from = 0;
  for (let i = 0; i < starts.length; i++) {
    while (starts[i] - starts[from] >= periodMs) from++;
    most = Math.max(most, i - from + 1);
  }
  return most;
}
