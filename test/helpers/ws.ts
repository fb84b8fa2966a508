/**
 * WebSocket clients for the integration tests: a subscriber that records every
 * event with its arrival time, and a reader for refused upgrades (the plain
 * HTTP response and its envelope body). Every socket opened here is tracked so
 * that closeClients() can end them all after each test.
 */
import WebSocket, { type ClientOptions } from 'ws';
import type { ListeningApp } from './app';

export interface WsEvent {
  type: string;
  channelId?: string;
  channels?: string[];
  /** Date.now() when the client received it */
  at: number;
}

export interface Closed {
  code: number;
  reason: string;
  at: number;
}

export interface Subscriber {
  ws: WebSocket;
  /** the `subscribed` event */
  hello: WsEvent;
  /** every event after `subscribed`, in arrival order */
  events: WsEvent[];
  /** resolves when the connection closes */
  closed: Promise<Closed>;
  /** resolves with the first event (from `from` on) that matches, or rejects after timeoutMs */
  waitFor(predicate: (e: WsEvent) => boolean, timeoutMs?: number, from?: number): Promise<WsEvent>;
  close(): Promise<void>;
}

const open = new Set<WebSocket>();

export function wsUrl(app: ListeningApp, path: string): string {
  return `${app.baseUrl.replace(/^http/, 'ws')}${path}`;
}

function track(ws: WebSocket): WebSocket {
  open.add(ws);
  ws.on('close', () => open.delete(ws));
  ws.on('error', () => undefined);
  return ws;
}

/** Opens a subscription and resolves once its `subscribed` event has arrived. */
export function subscribe(
  app: ListeningApp,
  path: string,
  auth: string,
  options: ClientOptions = {},
): Promise<Subscriber> {
  const ws = track(
    new WebSocket(wsUrl(app, path), { ...options, headers: { Authorization: auth } }),
  );
  const events: WsEvent[] = [];
  const waiters = new Set<() => void>();
  const closed = new Promise<Closed>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString(), at: Date.now() });
      for (const wake of waiters) wake();
    }),
  );
  return new Promise((resolve, reject) => {
    let hello: WsEvent | null = null;
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      reject(new Error(`upgrade refused with ${res.statusCode}`));
      ws.terminate();
    });
    ws.on('error', (err) => {
      if (!hello) reject(err);
    });
    void closed.then((c) => {
      if (!hello) reject(new Error(`closed with ${c.code} before subscribed`));
    });
    ws.on('message', (data, isBinary) => {
      const event = {
        ...(JSON.parse(isBinary ? '"binary"' : data.toString()) as object),
        at: Date.now(),
      } as WsEvent;
      if (!hello) {
        hello = event;
        resolve(subscriber);
      } else {
        events.push(event);
      }
      for (const wake of waiters) wake();
    });
    const subscriber: Subscriber = {
      ws,
      get hello() {
        return hello as WsEvent;
      },
      events,
      closed,
      waitFor(predicate, timeoutMs = 5000, from = 0) {
        return new Promise((res, rej) => {
          const check = () => {
            const found = events.slice(from).find(predicate);
            if (found) {
              done();
              res(found);
            } else if (ws.readyState === WebSocket.CLOSED) {
              done();
              rej(new Error('connection closed before the event arrived'));
            }
          };
          const timer = setTimeout(() => {
            done();
            rej(new Error(`no matching event within ${timeoutMs} ms`));
          }, timeoutMs);
          const done = () => {
            clearTimeout(timer);
            waiters.delete(check);
          };
          waiters.add(check);
          check();
        });
      },
      async close() {
        if (ws.readyState === WebSocket.CLOSED) return;
        ws.close(1000);
        await closed;
      },
    };
  });
}

export interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

/** Attempts an upgrade that the server is expected to refuse; returns its HTTP response. */
export function refusedUpgrade(
  app: ListeningApp,
  path: string,
  headers: Record<string, string> = {},
): Promise<Refusal> {
  const ws = track(new WebSocket(wsUrl(app, path), { headers }));
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      ws.terminate();
      reject(new Error(`upgrade to ${path} was accepted`));
    });
    ws.on('error', (err) => reject(err));
    ws.on('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        req.destroy();
        ws.terminate();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
  });
}

/** Ends every client socket the helpers opened (afterEach). */
export async function closeClients(): Promise<void> {
  const all = [...open];
  await Promise.all(
    all.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.terminate();
        }),
    ),
  );
}

/** Events in the list matching the predicate. */
export const countEvents = (events: WsEvent[], predicate: (e: WsEvent) => boolean): number =>
  events.filter(predicate).length;

export const newMessage =
  (channelId: string) =>
  (e: WsEvent): boolean =>
    e.type === 'new_message' && e.channelId === channelId;
