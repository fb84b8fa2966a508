/**
 * The delivery loop every pod runs: each channel with a destination is consumed by one loop
 * per pod, which takes what flow control allows (destination_take: leases counted across all
 * pods), sends each message (send.ts) and records the outcome (destination_result: ack, retry
 * on the destination's schedule, dead after its attempts, breaker, disable). A loop wakes on
 * the channel's new_message events, when one of its requests ends, and at least every second.
 * Nothing is held in memory that a lease does not also hold: a pod that dies leaves leases
 * that lapse (timeout_ms + 5 s), and another pod delivers the message again.
 */
import http from 'node:http';
import https from 'node:https';
import client from 'prom-client';
import type { Logger } from 'pino';
import type { DestinationRecord, Relay, TakenMessage } from '../relay';
import { OutcomeBatcher } from './outcomes';
import { destinationRequest } from './request';
import { sendAttempt, type AttemptAnswer } from './send';

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

/** At most this many leases per take (a take is repeated at once while it fills one). */
const MAX_TAKE = 50;
/**
 * How long a loop uses the destination it read (its URL, headers, secrets; pause, flow control
 * and the schedule are read by the scripts themselves): a change made through this pod is
 * seen at once, one made through another pod within this.
 */
const RECORD_MS = 1000;

class DestinationLoop {
  stopped = false;
  inFlight = 0;
  state: DestinationRecord['state'] | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private running: Promise<void> | null = null;
  private readonly requests = new Set<Promise<void>>();
  private record: DestinationRecord | null = null;
  private recordAt = 0;
  /** this loop's outcomes, recorded in batches */
  readonly outcomes: OutcomeBatcher;

  constructor(
    readonly account: string,
    readonly channel: string,
    private readonly owner: Deliveries,
  ) {
    const { relay, options, log } = owner;
    this.outcomes = new OutcomeBatcher(
      (destination, outcomes) =>
        relay.destinations.results(account, channel, destination, outcomes, {
          logMax: options.logMax,
          cooldownMs: options.cooldownMs,
          disableAfterMs: options.disableAfterMs,
        }),
      (err, count) =>
        // the leases lapse and the messages are delivered again
        log.warn({ err: String(err), account, channel, count }, 'destination results not recorded'),
    );
  }

  start(): void {
    this.running = this.run();
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** The destination was changed through this pod: read it again before the next take. */
  invalidate(): void {
    this.record = null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await Promise.all([...this.requests]);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        this.woken = false;
        done();
      };
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let pause: number;
      try {
        pause = await this.cycle();
      } catch (err) {
        this.owner.log.warn(
          { err: String(err), account: this.account, channel: this.channel },
          'destination delivery cycle failed',
        );
        pause = this.owner.options.pollMs;
      }
      if (pause > 0 && !this.stopped) await this.sleep(pause);
    }
  }

  /** One take; returns how long to wait before the next. */
  private async cycle(): Promise<number> {
    const { relay, options } = this.owner;
    let record = this.record;
    if (!record || Date.now() - this.recordAt >= RECORD_MS) {
      record = await relay.destinations.read(this.account, this.channel);
      if (!record) {
        this.stopped = true;
        return 0;
      }
      this.record = record;
      this.recordAt = Date.now();
      this.state = record.state;
    }
    const taken = await relay.destinations.take(this.account, this.channel, record.id, MAX_TAKE);
    if (taken.status === 'gone') {
      // the channel was deleted: its destination goes with it
      await relay.destinations.removeGone(this.account, this.channel, record.id).catch(() => 0);
      this.stopped = true;
      return 0;
    }
    for (const message of taken.messages) {
      this.inFlight++;
      const request = this.attempt(record, message).finally(() => {
        this.inFlight--;
        this.requests.delete(request);
        this.wake();
      });
      this.requests.add(request);
    }
    // a full take may have left more; otherwise what frees a slot or brings a message wakes
    // the loop (a request ending, the channel's new_message), and pollMs bounds the rest
    if (taken.messages.length >= MAX_TAKE) return 0;
    if (taken.messages.length > 0) return options.pollMs;
    return taken.status === 'wait'
      ? Math.max(1, Math.min(taken.waitMs, options.pollMs))
      : options.pollMs;
  }

  private async attempt(record: DestinationRecord, message: TakenMessage): Promise<void> {
    const { relay, options, log } = this.owner;
    const started = Date.now();
    let answer: AttemptAnswer;
    let messageId = '';
    try {
      const [messageJson] = await relay.webhooks.resign(this.account, [message.messageJson]);
      const request = destinationRequest(record, messageJson, message.attempt, Date.now());
      messageId = request.headers['x-relayq-message-id'];
      answer = await sendAttempt({
        ...request,
        timeoutMs: record.config.timeout_ms,
        allowPrivate: options.allowPrivate,
        agent: this.owner.agentFor(request.url),
      });
    } catch (err) {
      answer = {
        status: null,
        retryAfterMs: null,
        excerpt: '',
        error: String(err).split('\n')[0],
        result: 'connection',
      };
    }
    const durationMs = Date.now() - started;
    this.owner.observe(this.account, this.channel, answer.result, durationMs);
    const outcome = answer.status === 410 ? 'gone' : answer.result === 'success' ? 'ok' : 'fail';
    const failure =
      outcome === 'ok'
        ? ''
        : answer.status !== null
          ? `HTTP ${answer.status}`
          : (answer.error ?? '');
    const entry = JSON.stringify({
      message_id: messageId,
      attempt: message.attempt,
      started_at: started,
      duration_ms: durationMs,
      status: answer.status,
      error: answer.error,
      response_excerpt: answer.excerpt,
    });
    const r = await this.outcomes.add(record.id, {
      leaseId: message.leaseId,
      outcome,
      retryAfterMs: answer.status === 429 || answer.status === 503 ? answer.retryAfterMs : null,
      failure,
      entry,
      attempt: message.attempt,
      durationMs,
      status: answer.status,
    });
    if (!r) return;
    const about = {
      account: this.account,
      channel: this.channel,
      destination: record.id,
      message: messageId,
      attempt: message.attempt,
    };
    if (r.result === 'dead' || r.result === 'dead_lettered')
      log.warn(
        { ...about, failure, to: r.result },
        r.result === 'dead'
          ? 'destination gave up on a message: kept as dead in its channel'
          : 'destination gave up on a message: moved to the dead-letter channel',
      );
    if (r.result === 'disabled') log.warn({ ...about, failure }, 'destination disabled');
    if (r.breakerOpenedMs > 0)
      log.warn({ ...about, cooldownMs: r.breakerOpenedMs }, 'destination circuit breaker open');
  }
}

export class Deliveries {
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
