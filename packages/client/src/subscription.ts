/**
 * A WebSocket subscription to one or many channels that stays up: it
 * reconnects with exponential backoff and jitter whenever the connection drops
 * or is refused, and declares a silent connection dead when the relay's pings
 * stop coming. It only reports; it never pulls.
 *
 * Events: 'connected' (channels), 'new_message' (channelId),
 * 'disconnected' ({ code, reason }), 'error' (RelayError | Error).
 * 'error' is emitted only when someone listens, so an unwatched subscription
 * never crashes its process.
 */
import { backoffDelay, backoffOptions, type BackoffOptions } from './backoff.js';
import { Emitter } from './emitter.js';
import { RelayError } from './errors.js';
import { openSocket, type RelaySocket } from './socket.js';
import { option } from './wire.js';

export interface SubscriptionOptions {
  url: string;
  token: string;
  channels: string[];
  /** Waits between reconnects; default 500 ms doubling up to 30 s, with jitter. */
  reconnect?: Partial<BackoffOptions>;
  /** No ping or event for this long means the connection is dead; default 75 s (the relay pings every 30 s). */
  heartbeatTimeoutMs?: number;
  /** @deprecated use heartbeatTimeoutMs */
  heartbeat_timeout_ms?: number;
}

export const DEFAULT_RECONNECT = { baseMs: 500, maxMs: 30_000 };

/** The WebSocket URL of a subscription: the single-channel form for one channel, else the multi form. */
export function subscriptionUrl(base: string, channels: string[]): string {
  const root = base.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:');
  if (channels.length === 1) {
    return `${root}/v1/relay/channels/${encodeURIComponent(channels[0])}/messages/subscribe`;
  }
  return `${root}/v1/relay/subscribe?channels=${channels.map(encodeURIComponent).join(',')}`;
}

export class Subscription extends Emitter {
  private socket: RelaySocket | null = null;
  private opening = false;
  private closed = false;
  private failures = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private heartbeatTimer: ReturnType<typeof setTimeout> | null = null;
  private isConnected = false;
  private readonly reconnect: BackoffOptions;
  private readonly heartbeatMs: number;
  private closing: Promise<void> | null = null;
  private onClosed: (() => void) | null = null;

  constructor(private readonly options: SubscriptionOptions) {
    super();
    if (options.channels.length === 0)
      throw new TypeError('channels must name at least one channel');
    this.reconnect = backoffOptions(DEFAULT_RECONNECT, options.reconnect);
    this.heartbeatMs = option<number>(options, 'heartbeatTimeoutMs') ?? 75_000;
  }

  /** True between 'connected' and 'disconnected'. */
  get connected(): boolean {
    return this.isConnected;
  }

  /** Opens the connection (and keeps it open until close()). */
  open(): this {
    if (!this.closed && !this.socket && !this.opening && !this.reconnectTimer) this.connect();
    return this;
  }

  /** Closes the connection for good; resolves once the socket is closed. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.clearHeartbeat();
    this.closing = new Promise<void>((resolve) => {
      const socket = this.socket;
      if (!socket || socket.isClosed) {
        if (!this.opening) return resolve();
      }
      // A peer that does not answer the close handshake is cut off.
      const force = setTimeout(() => this.socket?.terminate(), 2_000);
      this.onClosed = () => {
        clearTimeout(force);
        resolve();
      };
      socket?.close(1000, 'client closed');
    });
    return this.closing;
  }

  private report(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private connect(): void {
    const url = subscriptionUrl(this.options.url, this.options.channels);
    this.opening = true;
    let socket: RelaySocket | null = null;
    openSocket(url, this.options.token, {
      // Open but not yet told `subscribed`: the same limit as a silent connection, at most 10 s.
      open: () => this.armHeartbeat(Math.min(this.heartbeatMs, 10_000)),
      ping: () => {
        if (this.isConnected) this.armHeartbeat();
      },
      message: (text) => this.onMessage(text),
      refused: (status, body) => this.report(refusal(status, body)),
      error: (err) =>
        this.report(
          new RelayError(0, 0, `cannot subscribe at ${url}: ${err.message}`, { cause: err }),
        ),
      close: (code, reason) => this.onClose(socket, code, reason),
    }).then(
      (opened) => {
        socket = opened;
        this.socket = opened;
        this.opening = false;
        if (this.closed) opened.close(1000, 'client closed');
      },
      (err: unknown) => {
        this.opening = false;
        this.report(err instanceof Error ? err : new Error(String(err)));
        this.onClose(null, 1006, '');
      },
    );
  }

  private onMessage(text: string): void {
    let event: { type?: unknown; channelId?: unknown };
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    if (this.isConnected || event.type === 'subscribed') this.armHeartbeat();
    if (event.type === 'subscribed') {
      this.failures = 0;
      this.isConnected = true;
      this.emit('connected', this.options.channels);
    } else if (event.type === 'new_message' && typeof event.channelId === 'string') {
      this.emit('new_message', event.channelId);
    }
  }

  private onClose(socket: RelaySocket | null, code: number, reason: string): void {
    this.clearHeartbeat();
    if (this.socket === socket) this.socket = null;
    const wasConnected = this.isConnected;
    this.isConnected = false;
    if (wasConnected) this.emit('disconnected', { code, reason });
    if (code === 1008 && wasConnected) {
      this.report(
        new RelayError(
          401,
          401,
          `the relay closed the subscription: ${reason || 'policy violation'}`,
        ),
      );
    }
    if (this.closed) {
      this.onClosed?.();
      return;
    }
    const delay = backoffDelay(this.failures++, this.reconnect);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed) this.connect();
    }, delay);
  }

  private armHeartbeat(ms = this.heartbeatMs): void {
    this.clearHeartbeat();
    const socket = this.socket;
    // where pings cannot be seen, a quiet connection is not a dead one
    if (socket && !socket.seesPings && ms === this.heartbeatMs) return;
    this.heartbeatTimer = setTimeout(() => (socket ?? this.socket)?.terminate(), ms);
  }

  private clearHeartbeat(): void {
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}

/** The relay refuses an upgrade with a plain HTTP answer carrying the envelope. */
function refusal(status: number, body: string): RelayError {
  let code = status;
  let message = `the relay refused the subscription with HTTP ${status}`;
  try {
    const env = JSON.parse(body);
    if (Array.isArray(env?.errors) && env.errors[0]) {
      code = env.errors[0].code;
      message = env.errors[0].message;
    }
  } catch {
    // not an envelope: keep the generic sentence
  }
  return new RelayError(status, code, message);
}
