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
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { backoffDelay, type BackoffOptions } from './backoff';
import { RelayError } from './errors';

export interface SubscriptionOptions {
  url: string;
  token: string;
  channels: string[];
  /** Waits between reconnects; default 500 ms doubling up to 30 s, with jitter. */
  reconnect?: Partial<BackoffOptions>;
  /** No ping or event for this long means the connection is dead; default 75 s (the relay pings every 30 s). */
  heartbeat_timeout_ms?: number;
}

export const DEFAULT_RECONNECT: BackoffOptions = { base_ms: 500, max_ms: 30_000 };

/** The WebSocket URL of a subscription: the single-channel form for one channel, else the multi form. */
export function subscriptionUrl(base: string, channels: string[]): string {
  const root = base.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:');
  if (channels.length === 1) {
    return `${root}/v1/relay/channels/${encodeURIComponent(channels[0])}/messages/subscribe`;
  }
  return `${root}/v1/relay/subscribe?channels=${channels.map(encodeURIComponent).join(',')}`;
}

export class Subscription extends EventEmitter {
  private socket: WebSocket | null = null;
  private closed = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private isConnected = false;
  private readonly reconnect: BackoffOptions;
  private readonly heartbeatMs: number;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: SubscriptionOptions) {
    super();
    if (options.channels.length === 0)
      throw new TypeError('channels must name at least one channel');
    this.reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.heartbeatMs = options.heartbeat_timeout_ms ?? 75_000;
  }

  /** True between 'connected' and 'disconnected'. */
  get connected(): boolean {
    return this.isConnected;
  }

  /** Opens the connection (and keeps it open until close()). */
  open(): this {
    if (!this.closed && !this.socket && !this.reconnectTimer) this.connect();
    return this;
  }

  /** Closes the connection for good; resolves once the socket is closed. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.clearHeartbeat();
    const socket = this.socket;
    this.closing = new Promise<void>((resolve) => {
      if (!socket || socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once('close', () => resolve());
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else if (socket.readyState === WebSocket.OPEN) socket.close(1000, 'client closed');
      // A peer that does not answer the close handshake is cut off.
      const force = setTimeout(() => socket.terminate(), 2_000);
      socket.once('close', () => clearTimeout(force));
    });
    return this.closing;
  }

  private report(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private connect(): void {
    const url = subscriptionUrl(this.options.url, this.options.channels);
    const socket = new WebSocket(url, {
      headers: { authorization: `Bearer ${this.options.token}` },
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.socket = socket;
    let refusal: Promise<void> | null = null;

    socket.on('unexpected-response', (_req, res) => {
      // The relay refuses an upgrade with a plain HTTP response carrying the envelope.
      refusal = new Promise<void>((resolve) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => resolve());
        res.on('aborted', () => resolve());
        res.on('close', () => resolve());
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let code = status;
          let message = `the relay refused the subscription with HTTP ${status}`;
          try {
            const env = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (Array.isArray(env?.errors) && env.errors[0]) {
              code = env.errors[0].code;
              message = env.errors[0].message;
            }
          } catch {
            // not an envelope: keep the generic sentence
          }
          this.report(new RelayError(status, code, message));
          resolve();
        });
      }).finally(() => socket.terminate());
    });
    // Open but not yet told `subscribed`: the same limit as a silent connection, at most 10 s.
    socket.on('open', () => this.armHeartbeat(Math.min(this.heartbeatMs, 10_000)));
    socket.on('ping', () => {
      if (this.isConnected) this.armHeartbeat();
    });
    socket.on('message', (data) => {
      let event: { type?: unknown; channelId?: unknown; channels?: unknown };
      try {
        event = JSON.parse(String(data));
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
    });
    socket.on('error', (err) => {
      if (!refusal) {
        this.report(
          new RelayError(0, 0, `cannot subscribe at ${url}: ${err.message}`, { cause: err }),
        );
      }
    });
    socket.on('close', (code, reason) => {
      this.clearHeartbeat();
      if (this.socket === socket) this.socket = null;
      const wasConnected = this.isConnected;
      this.isConnected = false;
      if (wasConnected) this.emit('disconnected', { code, reason: reason.toString('utf8') });
      if (code === 1008 && wasConnected) {
        this.report(
          new RelayError(
            401,
            401,
            `the relay closed the subscription: ${reason.toString('utf8') || 'policy violation'}`,
          ),
        );
      }
      if (this.closed) return;
      const delay = backoffDelay(this.failures++, this.reconnect);
      const schedule = () => {
        if (this.closed) return;
        this.reconnectTimer = setTimeout(() => {
          this.reconnectTimer = null;
          if (!this.closed) this.connect();
        }, delay);
      };
      if (refusal) void refusal.then(schedule);
      else schedule();
    });
  }

  private armHeartbeat(ms = this.heartbeatMs): void {
    this.clearHeartbeat();
    const socket = this.socket;
    this.heartbeatTimer = setTimeout(() => socket?.terminate(), ms);
  }

  private clearHeartbeat(): void {
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}
