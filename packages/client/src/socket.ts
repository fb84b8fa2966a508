/**
 * The WebSocket under a subscription. In Node (and Electron's main process)
 * it is the `ws` package, loaded only then, which sends the token in the
 * Authorization header and reports the relay's pings and refusals. Where a
 * page runs (browsers, Electron's renderer), it is the global WebSocket,
 * which cannot send headers: the token goes in the `relayq.bearer.<token>`
 * subprotocol, and the browser answers pings by itself.
 */
export interface SocketHandlers {
  open(): void;
  message(text: string): void;
  /** The relay pinged (only where pings are visible: with `ws`). */
  ping(): void;
  /** The relay refused the upgrade with an HTTP answer (only with `ws`). */
  refused(status: number, body: string): void;
  error(err: Error): void;
  close(code: number, reason: string): void;
}

export interface RelaySocket {
  /** Pings are visible: a silent connection can be told from a quiet one. */
  readonly seesPings: boolean;
  readonly isOpen: boolean;
  readonly isClosed: boolean;
  close(code: number, reason: string): void;
  /** Drops the connection without the closing handshake. */
  terminate(): void;
}

/** The subprotocol that carries the token where no Authorization header can be sent. */
export const BEARER_PROTOCOL_PREFIX = 'relayq.bearer.';

/** Node's own process, not a page's (Electron's renderer has `window`). */
function isNodeProcess(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; window?: unknown };
  return typeof g.window === 'undefined' && typeof g.process?.versions?.node === 'string';
}

export async function openSocket(
  url: string,
  token: string,
  on: SocketHandlers,
): Promise<RelaySocket> {
  if (isNodeProcess() || typeof globalThis.WebSocket !== 'function') {
    return openWs(url, token, on);
  }
  return openGlobal(url, token, on);
}

async function openWs(url: string, token: string, on: SocketHandlers): Promise<RelaySocket> {
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(url, {
    headers: { authorization: `Bearer ${token}` },
    handshakeTimeout: 10_000,
    perMessageDeflate: false,
  });
  let refused: Promise<void> | null = null;
  socket.on('unexpected-response', (_req, res) => {
    refused = new Promise<void>((resolve) => {
      const chunks: Uint8Array[] = [];
      res.on('data', (c: Uint8Array) => chunks.push(c));
      res.on('error', () => resolve());
      res.on('aborted', () => resolve());
      res.on('close', () => resolve());
      res.on('end', () => {
        on.refused(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
        resolve();
      });
    }).finally(() => socket.terminate());
  });
  socket.on('open', () => on.open());
  socket.on('ping', () => on.ping());
  socket.on('message', (data) => on.message(String(data)));
  socket.on('error', (err) => {
    if (!refused) on.error(err);
  });
  socket.on('close', (code, reason) => {
    const done = () => on.close(code, reason.toString('utf8'));
    if (refused) void refused.then(done);
    else done();
  });
  return {
    seesPings: true,
    get isOpen() {
      return socket.readyState === WebSocket.OPEN;
    },
    get isClosed() {
      return socket.readyState === WebSocket.CLOSED;
    },
    close: (code, reason) => {
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
    },
    terminate: () => socket.terminate(),
  };
}

function openGlobal(url: string, token: string, on: SocketHandlers): RelaySocket {
  const socket = new globalThis.WebSocket(url, ['relayq', `${BEARER_PROTOCOL_PREFIX}${token}`]);
  let closed = false;
  socket.addEventListener('open', () => on.open());
  socket.addEventListener('message', (e: MessageEvent) => on.message(String(e.data)));
  socket.addEventListener('error', () => on.error(new Error('the WebSocket failed')));
  socket.addEventListener('close', (e: CloseEvent) => {
    if (closed) return;
    closed = true;
    on.close(e.code, e.reason);
  });
  return {
    seesPings: false,
    get isOpen() {
      return socket.readyState === socket.OPEN;
    },
    get isClosed() {
      return closed;
    },
    close: (code, reason) => socket.close(code, reason),
    // a page's WebSocket has no terminate: a close without waiting is the nearest
    terminate: () => {
      socket.close();
      if (!closed) {
        closed = true;
        on.close(1006, 'terminated');
      }
    },
  };
}
