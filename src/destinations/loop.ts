/**
 * One pod's delivery loop for one channel's destination: takes what flow control allows,
 * sends each message (send.ts) and records the outcomes (outcomes.ts), each call recording
 * what ended and taking what the freed slots allow at once (destination_result). It wakes on
 * the channel's new_message events, when one of its requests ends, and at least every pollMs.
 * Nothing is held in memory that a lease does not also hold: a pod that dies leaves leases
 * that lapse (timeout_ms + 5 s), and another pod delivers the message again.
 */
import type http from 'node:http';
import type { Logger } from 'pino';
import type { DestinationRecord, Relay, TakenMessage, TakeResult } from '../relay';
import { OutcomeQueue, settleBatch } from './outcomes';
import { destinationRequest } from './request';
import { sendAttempt, type AttemptAnswer } from './send';

/** What a loop needs of the pod's deliveries (deliveries.ts). */
export interface LoopOwner {
  readonly relay: Relay;
  readonly log: Logger;
  readonly options: {
    pollMs: number;
    cooldownMs: number;
    disableAfterMs: number;
    logMax: number;
    allowPrivate: boolean;
  };
  agentFor(url: string): http.Agent;
  observe(account: string, channel: string, result: AttemptAnswer['result'], ms: number): void;
}

/** At most this many leases per take (a take is repeated at once while it fills one). */
const MAX_TAKE = 50;
/**
 * How long a loop uses the destination it read (its URL, headers, secrets; pause, flow control
 * and the schedule are read by the scripts themselves): a change made through this pod is
 * seen at once, one made through another pod within this.
 */
const RECORD_MS = 1000;

export class DestinationLoop {
  stopped = false;
  state: DestinationRecord['state'] | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private running: Promise<void> | null = null;
  /** requests being sent (until their outcome is queued) */
  private readonly requests = new Set<Promise<void>>();
  private record: DestinationRecord | null = null;
  private recordAt = 0;
  private readonly outcomes = new OutcomeQueue();

  constructor(
    readonly account: string,
    readonly channel: string,
    private readonly owner: LoopOwner,
  ) {}

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

  /** Stops taking; the requests in flight end and their outcomes are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await Promise.all([...this.requests]);
    while (this.outcomes.size > 0) {
      try {
        const record =
          this.record ?? (await this.owner.relay.destinations.read(this.account, this.channel));
        await this.settle(record?.id ?? null, 0);
      } catch {
        break;
      }
    }
    settleBatch(this.outcomes.next(null, Infinity), null);
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

  /**
   * Records the next batch of outcomes (if any) and takes up to takeMax messages, in one call
   * (a plain take when nothing ended). A failed call records nothing: those leases lapse.
   */
  private async settle(destination: string | null, max: number): Promise<TakeResult> {
    const { relay, options, log } = this.owner;
    const batch = this.outcomes.next(destination);
    // no more than the slots this pod does not hold itself (other pods' leases: the script)
    const parallelism = this.record?.config.parallelism ?? max;
    const takeMax = Math.max(
      0,
      Math.min(max, parallelism - this.requests.size - this.outcomes.size),
    );
    const idle: TakeResult = { status: 'idle', waitMs: 0, messages: [] };
    // no destination any more: what ended is not recorded (those leases lapse)
    if (destination === null) {
      settleBatch(batch, null);
      return idle;
    }
    // nothing ended: a plain take, when this pod has a slot of its own free
    if (batch.length === 0) {
      return takeMax === 0
        ? idle
        : relay.destinations.take(this.account, this.channel, destination, takeMax);
    }
    try {
      const settled = await relay.destinations.settle(
        this.account,
        this.channel,
        destination,
        batch.map((p) => p.outcome),
        options,
        takeMax,
      );
      settleBatch(batch, settled.results);
      return settled.taken;
    } catch (err) {
      settleBatch(batch, null);
      log.warn(
        { err: String(err), account: this.account, channel: this.channel, count: batch.length },
        'destination results not recorded',
      );
      throw err;
    }
  }

  /** One call; returns how long to wait before the next. */
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
    const taken = await this.settle(record.id, MAX_TAKE);
    if (taken.status === 'gone') {
      // the channel was deleted: its destination goes with it
      await relay.destinations.removeGone(this.account, this.channel, record.id).catch(() => 0);
      this.stopped = true;
      return 0;
    }
    for (const message of taken.messages) {
      const request = this.attempt(record, message).finally(() => {
        this.requests.delete(request);
        this.wake();
      });
      this.requests.add(request);
    }
    // a full take may have left more, and outcomes that ended meanwhile wait; otherwise what
    // ends a request or brings a message wakes the loop (the channel's new_message), and
    // pollMs bounds the rest
    if (taken.messages.length >= MAX_TAKE || this.outcomes.size > 0) return 0;
    if (taken.messages.length > 0) return options.pollMs;
    return taken.status === 'wait'
      ? Math.max(1, Math.min(taken.waitMs, options.pollMs))
      : options.pollMs;
  }

  /** Sends one message; its outcome is queued for the loop's next call. */
  private async attempt(record: DestinationRecord, message: TakenMessage): Promise<void> {
    const { relay, options } = this.owner;
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
    void this.outcomes
      .add(record.id, {
        leaseId: message.leaseId,
        outcome,
        retryAfterMs: answer.status === 429 || answer.status === 503 ? answer.retryAfterMs : null,
        failure,
        entry,
        attempt: message.attempt,
        durationMs,
        status: answer.status,
      })
      .then((r) => {
        if (!r) return;
        const about = {
          account: this.account,
          channel: this.channel,
          destination: record.id,
          message: messageId,
          attempt: message.attempt,
        };
        const { log } = this.owner;
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
      });
  }
}
