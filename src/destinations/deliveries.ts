/**
 * The deliveries every pod runs: each channel with a destination is consumed by one loop per
 * pod (loop.ts), which takes what flow control allows (leases counted across all pods), sends
 * each message (send.ts) and records the outcomes (destination_result: ack, retry on the
 * destination's schedule, dead after its attempts, breaker, disable). This module keeps the
 * loops in step with the list of destinations, wakes them on their channels' new_message
 * events, and owns the pod's connection pools and the push metrics.
 */
import http from 'node:http';
import https from 'node:https';
import client from 'prom-client';
import type { Logger } from 'pino';
import type { Relay } from '../relay';
import { DestinationLoop, type LoopOwner } from './loop';
import type { AttemptAnswer } from './send';

export interface DeliveryOptions {
  /** how often the list of destinations is read, and an idle loop looks again (ms) */
  pollMs: number;
  /** the circuit breaker's first cooldown (ms) */
  cooldownMs: number;
  /** failing this long without a success disables a destination (ms) */
  disableAfterMs: number;
  /** most attempts kept in a destination's log */
  logMax: number;
  /** connect to loopback and private addresses */
  allowPrivate: boolean;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  pollMs: 1000,
  cooldownMs: 30_000,
  disableAfterMs: 5 * 24 * 3600_000,
  logMax: 1000,
  allowPrivate: false,
};

export class Deliveries implements LoopOwner {
  readonly options: DeliveryOptions;
  private readonly loops = new Map<string, DestinationLoop>();
  private readonly unsubscribe = new Map<string, () => void>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly attempts: client.Counter<'result'>;
  private readonly duration: client.Histogram;
  /** per destination, for the accounts in RELAY_METRICS_ACCOUNTS */
  private readonly listed: ReadonlySet<string>;
  private readonly destinationAttempts: client.Counter<'account' | 'channel' | 'result'>;
  private readonly destinationDuration: client.Histogram<'account' | 'channel'>;

  constructor(
    readonly relay: Relay,
    readonly log: Logger,
    options: Partial<DeliveryOptions> = {},
  ) {
    this.options = { ...DEFAULT_DELIVERY_OPTIONS, ...options };
    const registers = [relay.metrics.registry];
    const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
    this.attempts = new client.Counter({
      name: 'relayq_push_attempts_total',
      help: 'Attempts to deliver a message to a push destination, by result',
      labelNames: ['result'],
      registers,
    });
    this.duration = new client.Histogram({
      name: 'relayq_push_duration_seconds',
      help: 'Duration of attempts to deliver to push destinations',
      buckets,
      registers,
    });
    this.listed = new Set(relay.config.metricsAccounts);
    const listedRegisters = this.listed.size > 0 ? registers : [];
    this.destinationAttempts = new client.Counter({
      name: 'relayq_destination_attempts_total',
      help: "Attempts to deliver to one channel's push destination, by result, for the accounts in RELAY_METRICS_ACCOUNTS",
      labelNames: ['account', 'channel', 'result'],
      registers: listedRegisters,
    });
    this.destinationDuration = new client.Histogram({
      name: 'relayq_destination_duration_seconds',
      help: "Duration of attempts to deliver to one channel's push destination, for the accounts in RELAY_METRICS_ACCOUNTS",
      labelNames: ['account', 'channel'],
      buckets,
      registers: listedRegisters,
    });
    const loops = this.loops;
    new client.Gauge({
      name: 'relayq_destinations',
      help: 'Push destinations by state (as this pod last read them)',
      labelNames: ['state'],
      registers,
      collect() {
        const counts: Record<string, number> = { active: 0, paused: 0, disabled: 0 };
        for (const loop of loops.values()) if (loop.state) counts[loop.state]++;
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
  }

  /** Kept-alive connections to the receivers, one pool per protocol for the pod. */
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: 256 }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: 256 }),
  };

  agentFor(url: string): http.Agent {
    return url.startsWith('https:') ? this.agents.https : this.agents.http;
  }

  observe(account: string, channel: string, result: AttemptAnswer['result'], durationMs: number) {
    this.attempts.inc({ result });
    this.duration.observe(durationMs / 1000);
    if (!this.listed.has(account)) return;
    this.destinationAttempts.inc({ account, channel, result });
    this.destinationDuration.observe({ account, channel }, durationMs / 1000);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      void this.refresh().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.options.pollMs);
      });
    };
    tick();
  }

  /** Wakes this pod's loop of a channel (after a change made through this pod). */
  wake(account: string, channel: string): void {
    const loop = this.loops.get(`${account}/${channel}`);
    if (loop) {
      loop.invalidate();
      loop.wake();
    } else void this.refresh();
  }

  /** Reads the list of destinations: starts the loops of new ones, stops those of gone ones. */
  async refresh(): Promise<void> {
    let all: { account: string; channel: string }[];
    try {
      all = await this.relay.destinations.all();
    } catch (err) {
      this.log.warn({ err: String(err) }, 'destinations not listed');
      return;
    }
    if (this.stopped) return;
    const wanted = new Set(all.map((d) => `${d.account}/${d.channel}`));
    for (const [key, loop] of this.loops) {
      if (!wanted.has(key) || loop.stopped) {
        this.loops.delete(key);
        void loop.stop();
      }
    }
    for (const { account, channel } of all) {
      const key = `${account}/${channel}`;
      if (this.loops.has(key)) continue;
      const loop = new DestinationLoop(account, channel, this);
      this.loops.set(key, loop);
      loop.start();
      if (!this.unsubscribe.has(account)) {
        this.unsubscribe.set(account, () => undefined);
        void this.relay
          .subscribe(account, (event) => {
            if (event.kind === 'new_message') this.loops.get(`${account}/${event.channel}`)?.wake();
          })
          .then((off) => {
            if (this.stopped) off();
            else this.unsubscribe.set(account, off);
          })
          .catch(() => this.unsubscribe.delete(account));
      }
    }
  }

  /** Stops taking messages; requests in flight finish (or their leases lapse). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const loops = [...this.loops.values()];
    this.loops.clear();
    await Promise.all(loops.map((l) => l.stop()));
    for (const off of this.unsubscribe.values()) off();
    this.unsubscribe.clear();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
