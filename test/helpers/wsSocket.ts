/** Small WebSocket client helpers for tests: collected events, refusals before upgrade. */
import WebSocket from 'ws';

export interface TestSocket {
  ws: WebSocket;
  events: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first event (already received or coming) that matches. */
  waitFor(match: (e: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<unknown>;
  close(): Promise<void>;
}

export function wsUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/^http/, 'ws') + path;
}

/** Opens a WebSocket and waits for the upgrade; rejects with the refusal's status. */
export function openSocket(url: string, auth: string): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: auth } });
    const events: Record<string, unknown>[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (data) => {
      events.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const w of [...waiters]) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: String(reason) })),
    );
    ws.on('unexpected-response', (_req, res) => {
      reject(new Error(`upgrade refused with ${res.statusCode}`));
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
    ws.on('open', () =>
      resolve({
        ws,
        events,
        closed,
        waitFor(match, timeoutMs = 5000) {
          return new Promise((res, rej) => {
            const check = () => {
              const found = events.find(match);
              if (found) {
                clearTimeout(timer);
                waiters.splice(waiters.indexOf(check), 1);
                res(found);
              }
            };
            const timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(check), 1);
              rej(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(events)}`));
            }, timeoutMs);
            waiters.push(check);
            check();
          });
        },
        async close() {
          if (ws.readyState === WebSocket.CLOSED) return;
          ws.terminate();
          await closed;
        },
      }),
    );
  });
}

/** The HTTP answer to an upgrade request that the server refuses. */
export function upgradeRefusal(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d) => (text += String(d)));
      res.on('end', () => {
        ws.terminate();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
      });
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgrade unexpectedly accepted'));
    });
    ws.on('error', () => undefined);
  });
}
