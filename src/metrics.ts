/**
 * Prometheus metrics on a registry of our own (never prom-client's global one),
 * so that two app instances in one process keep separate counts. Label sets are
 * bounded: routes are templates, never raw paths or channel ids.
 */
import client from 'prom-client';

export type MessageEvent =
  | 'sent'
  | 'pulled'
  | 'acked'
  | 'requeued'
  | 'retried'
  | 'dead_lettered'
  | 'discarded'
  | 'expired'
  /** leases given back because the client left before its pull was answered */
  | 'released';

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  readonly messages: client.Counter<'event'>;
  readonly scriptDuration: client.Histogram<'script'>;
  readonly scriptErrors: client.Counter<'script'>;
  readonly wsConnections: client.Gauge;
  readonly wsSubscriptions: client.Gauge;
  readonly wsClosed: client.Counter<'code'>;
  readonly routed: client.Counter<'result'>;
  readonly replayed: client.Counter;
  /** set every RELAY_HISTORY_COUNT_INTERVAL_MS by the app (a walk over the history indexes, not a scrape's) */
  readonly historyRecords: client.Gauge;

  constructor(options: { collectDefaults?: boolean } = {}) {
    if (options.collectDefaults !== false) {
      client.collectDefaultMetrics({ register: this.registry, prefix: 'relayq_' });
    }
    this.httpDuration = new client.Histogram({
      name: 'relayq_http_request_duration_seconds',
      help: 'HTTP request duration by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
      registers: [this.registry],
    });
    this.messages = new client.Counter({
      name: 'relayq_messages_total',
      help: 'Messages by lifecycle event: sent, pulled, acked, requeued, retried, dead_lettered, discarded, expired',
      labelNames: ['event'],
      registers: [this.registry],
    });
    this.scriptDuration = new client.Histogram({
      name: 'relayq_redis_script_duration_seconds',
      help: 'Duration of Redis Lua script calls',
      labelNames: ['script'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [this.registry],
    });
    this.scriptErrors = new client.Counter({
      name: 'relayq_redis_script_errors_total',
      help: 'Redis script calls that failed for reasons other than a business rule (unreachable, timeout, bug)',
      labelNames: ['script'],
      registers: [this.registry],
    });
    this.wsConnections = new client.Gauge({
      name: 'relayq_websocket_connections',
      help: 'Open WebSocket connections on this pod',
      registers: [this.registry],
    });
    this.wsSubscriptions = new client.Gauge({
      name: 'relayq_websocket_subscriptions',
      help: 'Channel subscriptions held by open WebSocket connections on this pod',
      registers: [this.registry],
    });
    this.wsClosed = new client.Counter({
      name: 'relayq_websocket_closed_total',
      help: 'WebSocket connections closed by this pod, by close code: 1001 shutdown, 1008 credentials or frame flood, 1011 internal, 1013 slow reader, 1006 missed pong',
      labelNames: ['code'],
      registers: [this.registry],
    });
    this.routed = new client.Counter({
      name: 'relayq_routed_messages_total',
      help: 'Routes (docs/api/routes.md): matched = copies stored by a matching route, unmatched = messages no route matched',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.routed.inc({ result: 'matched' }, 0);
    this.routed.inc({ result: 'unmatched' }, 0);
    this.replayed = new client.Counter({
      name: 'relayq_replayed_messages_total',
      help: 'Copies of messages stored by replays from history (one message or a bulk job)',
      registers: [this.registry],
    });
    this.historyRecords = new client.Gauge({
      name: 'relayq_history_records',
      help: 'Message records kept in channel histories (history_seconds), service-wide; counted every RELAY_HISTORY_COUNT_INTERVAL_MS',
      registers: [this.registry],
    });
  }

  count(event: MessageEvent, n: number): void {
    if (n > 0) this.messages.inc({ event }, n);
  }
}
