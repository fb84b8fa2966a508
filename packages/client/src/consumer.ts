/**
 * client.consume(): a consumer that subscribes to its channels over WebSocket
 * and pulls when told that messages exist, when it (re)connects, and on a
 * fallback timer, so nothing waits for long when an event is missed or the
 * socket is down. It runs the handler with bounded concurrency and never holds
 * a lease it is not working on (a pull asks for at most the free handler
 * slots). Success is acknowledged (in batches); failure hands the message back
 * with a delay (`retryDelaySeconds`) or lets its lease lapse. Leases of
 * handlers that run long are extended. Acks that fail for want of the relay
 * are kept and retried until they go through.
 */
import { AckBatcher } from './acks.js';
import type { RelayApi } from './api.js';
import { backoffDelay, backoffOptions, type BackoffOptions } from './backoff.js';
import { Emitter } from './emitter.js';
import { Subscription } from './subscription.js';
import type { PulledMessage } from './types.js';
import { option } from './wire.js';

export interface HandlerContext {
  /** The channel the message was pulled from. */
  channel: string;
}

export type MessageHandler<Body = unknown> = (
  message: PulledMessage<Body>,
  context: HandlerContext,
) => unknown | Promise<unknown>;

export interface ConsumeOptions {
  /** Handlers running at once, across all channels; default 1 (messages handled one at a time, oldest first). */
  concurrency?: number;
  /** Most messages per pull, 1 to 100; default 10 (a pull never asks for more than the free handler slots). */
  batchSize?: number;
  /** Lease length asked for on each pull; default 30000 ms. */
  visibilityTimeoutMs?: number;
  /** Pull every channel this often even without events; default 10000 ms. */
  fallbackIntervalMs?: number;
  /**
   * On handler failure: hand the message back to be delivered again after this
   * many seconds (ack `retries`). Unset (default): let its lease lapse, so it
   * comes back when its visibility timeout ends.
   */
  retryDelaySeconds?: number;
  /** Extend the lease of a handler still running at half its visibility timeout; default true. */
  extendLeases?: boolean;
  /** Collect acks for this long before sending them in one call; default 20 ms. */
  ackDelayMs?: number;
  /** @deprecated use batchSize */
  batch_size?: number;
  /** @deprecated use visibilityTimeoutMs */
  visibility_timeout_ms?: number;
  /** @deprecated use fallbackIntervalMs */
  fallback_interval_ms?: number;
  /** @deprecated use retryDelaySeconds */
  retry_delay_seconds?: number;
  /** @deprecated use extendLeases */
  extend_leases?: boolean;
  /** @deprecated use ackDelayMs */
  ack_delay_ms?: number;
  /** WebSocket reconnect backoff; default 500 ms doubling up to 30 s, with jitter. */
  reconnect?: Partial<BackoffOptions>;
  /** Pull and ack backoff after failures the HTTP retries did not cure; default 500 ms up to 15 s. */
  backoff?: Partial<BackoffOptions>;
}

export interface StopOptions {
  /** Most time to spend sending the last acks once handlers have finished; default 30000 ms. */
  timeoutMs?: number;
  /** @deprecated use timeoutMs */
  timeout_ms?: number;
}

export interface ConsumerErrorContext {
  during: 'pull' | 'ack' | 'extend' | 'handler' | 'subscribe';
  channel?: string;
  message?: PulledMessage;
}

interface Running {
  channel: string;
  message: PulledMessage;
  /** The lease to ack: the latest one, should the message be pulled again while it runs. */
  leaseId: string;
  /** When the lease was last set or extended (local clock). */
  leasedAt: number;
}

const RECENT_LIMIT = 10_000;

export class Consumer extends Emitter {
  private readonly channels: string[];
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly visibilityMs: number;
  private readonly fallbackMs: number;
  private readonly retryDelay: number | undefined;
  private readonly extendLeases: boolean;
  private readonly backoff: BackoffOptions;

  private readonly subscription: Subscription;
  private readonly acks: AckBatcher;
  private readonly dirty = new Set<string>();
  private readonly pulling = new Set<string>();
  private readonly running = new Map<string, Running>();
  /** Ids handled successfully lately: a redelivery of one is acked, not handled again. */
  private readonly recent = new Map<string, number>();
  private readonly work = new Set<Promise<unknown>>();
  private reserved = 0;
  private cursor = 0;
  private pullFailures = 0;
  private pullPausedUntil = 0;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;
  private fallbackTimer: ReturnType<typeof setTimeout> | null = null;
  private extendTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;
  private stopped: Promise<void> | null = null;

  constructor(
    private readonly api: RelayApi,
    channels: string[],
    private readonly handler: MessageHandler,
    options: ConsumeOptions = {},
  ) {
    super();
    this.channels = [...new Set(channels)];
    if (this.channels.length === 0) throw new TypeError('consume needs at least one channel');
    this.concurrency = positiveInteger(options.concurrency ?? 1, 'concurrency');
    const given = <T>(name: string) => option<T>(options, name);
    this.batchSize = Math.min(100, positiveInteger(given('batchSize') ?? 10, 'batchSize'));
    this.visibilityMs = positiveInteger(
      given('visibilityTimeoutMs') ?? 30_000,
      'visibilityTimeoutMs',
    );
    this.fallbackMs = positiveInteger(given('fallbackIntervalMs') ?? 10_000, 'fallbackIntervalMs');
    this.retryDelay = given('retryDelaySeconds');
    this.extendLeases = given('extendLeases') ?? true;
    this.backoff = backoffOptions({ baseMs: 500, maxMs: 15_000 }, options.backoff);
    this.acks = new AckBatcher(api, {
      delayMs: Math.max(0, given('ackDelayMs') ?? 20),
      backoff: this.backoff,
      report: (err, channel) => this.report(err, { during: 'ack', channel }),
      track: (promise) => this.track(promise),
    });

    this.subscription = new Subscription({
      url: api.url,
      token: api.token,
      channels: this.channels,
      reconnect: options.reconnect,
    });
    this.subscription.on('connected', (chs: string[]) => {
      this.emit('connected', { channels: chs });
      this.markAll();
    });
    this.subscription.on('new_message', (channel: string) => {
      if (!this.channels.includes(channel)) return;
      this.dirty.add(channel);
      this.pump();
    });
    this.subscription.on('disconnected', (info: { code: number; reason: string }) =>
      this.emit('disconnected', info),
    );
    this.subscription.on('error', (err: Error) => this.report(err, { during: 'subscribe' }));
  }

  /** Starts subscribing and pulling; client.consume() calls it. */
  start(): this {
    this.subscription.open();
    this.fallbackTimer = setInterval(() => this.markAll(), this.fallbackMs);
    if (this.extendLeases) {
      const every = Math.max(100, Math.min(5_000, Math.floor(this.visibilityMs / 4)));
      this.extendTimer = setInterval(() => this.extendLongRunning(), every);
    }
    this.markAll();
    return this;
  }

  /** True while the WebSocket subscription is up. */
  get connected(): boolean {
    return this.subscription.connected;
  }

  /** Handlers running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Stops pulling, waits for running handlers (and the pulls already under
   * way, whose messages are handled too), sends their acks, closes the socket.
   */
  stop(options: StopOptions = {}): Promise<void> {
    if (this.stopped) return this.stopped;
    this.stopping = true;
    const timeoutMs = option<number>(options, 'timeoutMs') ?? 30_000;
    this.stopped = (async () => {
      if (this.fallbackTimer) clearInterval(this.fallbackTimer);
      if (this.pumpTimer) clearTimeout(this.pumpTimer);
      this.pumpTimer = null;
      while (this.work.size > 0) await Promise.allSettled([...this.work]);
      if (this.extendTimer) clearInterval(this.extendTimer);
      try {
        await this.acks.drain(timeoutMs);
      } finally {
        await this.subscription.close();
      }
    })();
    return this.stopped;
  }

  private report(err: unknown, context: ConsumerErrorContext): void {
    if (this.listenerCount('error') > 0) {
      // Anything with a message is passed as is (errors from another realm included).
      const isError = typeof (err as Error)?.message === 'string';
      this.emit('error', isError ? err : new Error(String(err)), context);
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => undefined);
    return promise;
  }

  private markAll(): void {
    for (const channel of this.channels) this.dirty.add(channel);
    this.pump();
  }

  /** Starts pulls on channels that may have messages, as far as free handler slots allow. */
  private pump(): void {
    if (this.stopping) return;
    const wait = this.pullPausedUntil - Date.now();
    if (wait > 0) {
      if (!this.pumpTimer) {
        this.pumpTimer = setTimeout(() => {
          this.pumpTimer = null;
          this.pump();
        }, wait);
      }
      return;
    }
    const count = this.channels.length;
    for (let i = 0; i < count; i++) {
      const free = this.concurrency - this.running.size - this.reserved;
      if (free <= 0) return;
      const channel = this.channels[(this.cursor + i) % count];
      if (!this.dirty.has(channel) || this.pulling.has(channel)) continue;
      this.cursor = (this.cursor + i + 1) % count;
      const want = Math.min(this.batchSize, free);
      this.dirty.delete(channel);
      this.pulling.add(channel);
      this.reserved += want;
      void this.track(this.pullOnce(channel, want));
      i = -1; // start over from the new cursor with the slots that are left
      if (this.dirty.size === 0) return;
    }
  }

  private async pullOnce(channel: string, want: number): Promise<void> {
    try {
      const result = await this.api.pull(channel, {
        batchSize: want,
        visibilityTimeoutMs: this.visibilityMs,
      });
      this.pullFailures = 0;
      if (result.messages.length >= want) this.dirty.add(channel);
      for (const message of result.messages) this.begin(channel, message);
    } catch (err) {
      this.dirty.add(channel);
      this.pullPausedUntil = Date.now() + backoffDelay(this.pullFailures++, this.backoff);
      this.report(err, { during: 'pull', channel });
    } finally {
      this.reserved -= want;
      this.pulling.delete(channel);
      this.pump();
    }
  }

  private begin(channel: string, message: PulledMessage): void {
    this.forgetOldRecent();
    const key = `${channel}\u0000${message.id}`;
    if (this.recent.has(key)) {
      // Handled already; only its ack was lost. Ack the new lease instead of handling it twice.
      this.acks.add(channel, message.leaseId);
      return;
    }
    const already = this.running.get(key);
    if (already) {
      // Its lease lapsed while the handler still runs: keep the handler, take the new lease.
      already.leaseId = message.leaseId;
      already.leasedAt = Date.now();
      return;
    }
    const entry: Running = { channel, message, leaseId: message.leaseId, leasedAt: Date.now() };
    this.running.set(key, entry);
    void this.track(this.handle(key, entry));
  }

  private async handle(key: string, entry: Running): Promise<void> {
    let ok = false;
    try {
      await this.handler(entry.message, { channel: entry.channel });
      ok = true;
    } catch (err) {
      this.report(err, { during: 'handler', channel: entry.channel, message: entry.message });
    }
    this.running.delete(key);
    if (ok) {
      this.recent.set(key, Date.now() + Math.max(3 * this.visibilityMs, 300_000));
      if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
      this.acks.add(entry.channel, entry.leaseId);
    } else if (this.retryDelay !== undefined) {
      this.acks.add(entry.channel, undefined, {
        leaseId: entry.leaseId,
        delaySeconds: this.retryDelay,
      });
    }
    this.pump();
  }

  private forgetOldRecent(): void {
    const now = Date.now();
    for (const [key, expires] of this.recent) {
      if (expires > now) break;
      this.recent.delete(key);
    }
  }

  private extendLongRunning(): void {
    const now = Date.now();
    const due = new Map<string, Running[]>();
    for (const entry of this.running.values()) {
      if (now - entry.leasedAt < this.visibilityMs / 2) continue;
      due.set(entry.channel, [...(due.get(entry.channel) ?? []), entry]);
    }
    for (const [channel, entries] of due) {
      for (const entry of entries) entry.leasedAt = now;
      for (let i = 0; i < entries.length; i += 100) {
        const leaseIds = entries.slice(i, i + 100).map((e) => e.leaseId);
        void this.track(
          this.api.extend(channel, leaseIds, this.visibilityMs).catch((err) => {
            this.report(err, { during: 'extend', channel });
          }),
        );
      }
    }
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new TypeError(`${name} must be a positive integer`);
  return value;
}
