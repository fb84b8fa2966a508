/**
 * WebSocket subscriptions on the API's own HTTP server. Each connection is
 * told `subscribed`, then `new_message` whenever messages become available on
 * one of its channels, on this pod or any other (Redis sharded pub/sub via the
 * EventHub: one Redis subscription per account, not per socket). An event is
 * looked up once in the account's channel index and framed once: every
 * subscriber of the channel is sent the same Buffer. Liveness by
 * ping/pong; revoked or expired tokens closed with 1008 (pushed: the revocation
 * event, a timer at the expiry; a slow safety check per token, and one for an
 * account's tokens after its event subscription was lost and made again); a
 * client that does not read is closed with 1013 before its buffer grows without bound.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { RelayError } from '../errors';
import { schemeOf, type TrustProxy } from '../web/proxy';
import type { AccountEvent, Relay } from '../relay';
import {
  parseSubscription,
  refuseUpgrade,
  serveWithoutUpgrade,
  wantsWebSocket,
  type SubscriptionRequest,
} from './upgrade';

const MAX_BUFFERED_BYTES = 1 << 20;
const MAX_CLIENT_FRAMES_PER_SECOND = 50;
/** Rechecks after a resubscription wait this long to gather the spread events into one batch. */
const RESUBSCRIBED_RECHECK_DELAY_MS = 250;

interface Client {
  ws: WebSocket;
  accountId: string;
  tokenId: string;
  channels: Set<string>;
  alive: boolean;
  frames: number;
  framesWindowStart: number;
  unsubscribe: () => void;
  expiryTimer: NodeJS.Timeout | null;
}

/** This pod's subscribers of one account, indexed by channel; one event listener for all. */
interface AccountClients {
  ready: Promise<() => void>;
  /** clients registered or registering; the listener goes when the last one leaves */
  members: number;
  clients: Set<Client>;
  byChannel: Map<string, Set<Client>>;
}

/** The same options object for every event frame: text, though sent as a Buffer. */
const TEXT_FRAME = { binary: false } as const;

const newMessageFrame = (channel: string): Buffer =>
  Buffer.from(JSON.stringify({ type: 'new_message', channelId: channel }));

export interface WebSocketHub {
  /** Closes every connection with the given code (1001 on shutdown). */
  closeAll(code: number, reason: string): void;
  clientCount(): number;
  /** Token lookups made for open connections (not connects), for the scale benchmark. */
  tokenChecks(): number;
}

/** What the WebSocket entrance needs of the app (src/app.ts's RelayApp has it). */
export interface WebSocketDeps {
  relay: Relay;
  /** which hops' X-Forwarded-Proto to believe (RELAY_TRUST_PROXY), for the Origin check */
  trustProxy: TrustProxy;
  isShuttingDown(): boolean;
}

export function attachWebSockets(server: http.Server, app: WebSocketDeps): WebSocketHub {
  const { relay } = app;
  const { config, log: logger, metrics } = relay;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, perMessageDeflate: false });
  const clients = new Set<Client>();
  const perToken = new Map<string, number>();
  const accounts = new Map<string, AccountClients>();

  const close = (client: Client, code: number, reason: string) => {
    if (client.ws.readyState === WebSocket.OPEN || client.ws.readyState === WebSocket.CONNECTING) {
      metrics.wsClosed.inc({ code: String(code) });
      client.ws.close(code, reason);
    }
  };

  const send = (client: Client, text: string | Buffer) => {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      logger.warn(
        { account: client.accountId },
        'closing a WebSocket client that does not read its events',
      );
      close(client, 1013, 'client is not reading; try again later');
      return;
    }
    client.ws.send(text, TEXT_FRAME);
  };

  const onEvent = (accountId: string, group: AccountClients) => (event: AccountEvent) => {
    if (event.kind === 'new_message') {
      const subscribers = group.byChannel.get(event.channel);
      if (!subscribers) return;
      const frame = newMessageFrame(event.channel);
      for (const client of subscribers) send(client, frame);
    } else if (event.kind === 'resubscribed') {
      // Events may have been missed while this pod's subscription was down,
      // a revocation among them. Each client hears of it at its own moment within
      // what is left of the hub's spread, so that they do not all pull at once and
      // the last hears of it no later than RESUBSCRIBE_SPREAD_MS after the resubscription.
      const left = Math.max(0, event.by - Date.now());
      for (const client of group.clients) {
        const timer = setTimeout(() => {
          for (const channel of client.channels) send(client, newMessageFrame(channel));
        }, Math.random() * left);
        timer.unref();
      }
      recheckSoon(accountId);
    } else if (event.kind === 'token_revoked') {
      for (const client of group.clients) {
        if (event.tokenId === client.tokenId) close(client, 1008, 'token revoked');
      }
    } else if (event.kind === 'account_deleted') {
      for (const client of group.clients) close(client, 1008, 'account deleted');
    }
  };

  /** The account's group, made (with its event subscription) for its first member. */
  const joinAccount = (accountId: string): AccountClients => {
    let group = accounts.get(accountId);
    if (!group) {
      const created: AccountClients = {
        ready: Promise.resolve(() => undefined),
        members: 0,
        clients: new Set(),
        byChannel: new Map(),
      };
      created.ready = relay.subscribe(accountId, onEvent(accountId, created));
      created.ready.catch(() => {
        if (accounts.get(accountId) === created) accounts.delete(accountId);
      });
      accounts.set(accountId, (group = created));
    }
    group.members++;
    return group;
  };

  const leaveAccount = (accountId: string, group: AccountClients, client: Client | null) => {
    if (client && group.clients.delete(client)) {
      for (const channel of client.channels) {
        const subscribers = group.byChannel.get(channel);
        subscribers?.delete(client);
        if (subscribers?.size === 0) group.byChannel.delete(channel);
      }
    }
    if (--group.members === 0 && accounts.get(accountId) === group) {
      accounts.delete(accountId);
      group.ready.then((unsubscribe) => unsubscribe()).catch(() => undefined);
    }
  };

  const register = async (ws: WebSocket, sub: SubscriptionRequest) => {
    const client: Client = {
      ws,
      accountId: sub.auth.accountId,
      tokenId: sub.auth.tokenId,
      channels: new Set(sub.channels),
      alive: true,
      frames: 0,
      framesWindowStart: Date.now(),
      unsubscribe: () => undefined,
      expiryTimer: null,
    };
    clients.add(client);
    perToken.set(client.tokenId, (perToken.get(client.tokenId) ?? 0) + 1);
    metrics.wsConnections.inc();
    metrics.wsSubscriptions.inc(client.channels.size);

    ws.on('pong', () => {
      client.alive = true;
    });
    ws.on('message', () => {
      // Client frames carry nothing for us; a flood of them is closed.
      const now = Date.now();
      if (now - client.framesWindowStart > 1000) {
        client.framesWindowStart = now;
        client.frames = 0;
      }
      if (++client.frames > MAX_CLIENT_FRAMES_PER_SECOND)
        close(client, 1008, 'too many frames from the client');
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      clients.delete(client);
      const left = (perToken.get(client.tokenId) ?? 1) - 1;
      if (left <= 0) perToken.delete(client.tokenId);
      else perToken.set(client.tokenId, left);
      metrics.wsConnections.dec();
      metrics.wsSubscriptions.dec(client.channels.size);
      if (client.expiryTimer) clearTimeout(client.expiryTimer);
      client.unsubscribe();
    });

    if (sub.auth.expiresMs !== null) {
      const ms = Math.max(0, sub.auth.expiresMs - Date.now());
      client.expiryTimer = setTimeout(
        () => close(client, 1008, 'token expired'),
        Math.min(ms, 2 ** 31 - 1),
      );
    }
    const group = joinAccount(client.accountId);
    try {
      await group.ready;
    } catch (err) {
      leaveAccount(client.accountId, group, null);
      throw err;
    }
    if (!clients.has(client)) {
      leaveAccount(client.accountId, group, null);
      return;
    }
    group.clients.add(client);
    for (const channel of client.channels) {
      let subscribers = group.byChannel.get(channel);
      if (!subscribers) group.byChannel.set(channel, (subscribers = new Set()));
      subscribers.add(client);
    }
    client.unsubscribe = () => leaveAccount(client.accountId, group, client);
    const hello = sub.multi
      ? { type: 'subscribed', channels: sub.channels }
      : { type: 'subscribed', channelId: sub.channels[0] };
    send(client, JSON.stringify(hello));
  };

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!wantsWebSocket(req)) {
      serveWithoutUpgrade(server, req, socket, head);
      return;
    }
    socket.on('error', () => socket.destroy());
    const scheme = schemeOf(req, app.trustProxy);
    parseSubscription(req, relay, scheme)
      .then(async (sub) => {
        if ((perToken.get(sub.auth.tokenId) ?? 0) >= config.maxWsConnectionsPerToken) {
          throw new RelayError(
            'concurrency_limit',
            `this token already has ${config.maxWsConnectionsPerToken} WebSocket connections on this server (RELAY_MAX_WS_CONNECTIONS_PER_TOKEN)`,
            { retryAfterSeconds: 5 },
          );
        }
        if (app.isShuttingDown()) {
          throw new RelayError('unavailable', 'the server is shutting down; reconnect to another');
        }
        // The account's place is given back whenever the socket closes, upgraded or not.
        const release = await relay.limits.holdWebSocket(sub.auth.accountId, sub.auth.limits);
        if (socket.destroyed) release();
        else socket.once('close', release);
        wss.handleUpgrade(req, socket, head, (ws) => {
          register(ws, sub).catch((err) => {
            logger.warn({ err: String(err) }, 'WebSocket registration failed');
            metrics.wsClosed.inc({ code: '1011' });
            ws.close(1011, 'internal error');
          });
        });
      })
      .catch((err) => {
        if (!(err instanceof RelayError))
          logger.error({ err: String(err) }, 'WebSocket upgrade failed');
        refuseUpgrade(socket, err);
      });
  });

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        if (client.ws.readyState === WebSocket.OPEN) metrics.wsClosed.inc({ code: '1006' });
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }, config.wsPingIntervalMs);
  heartbeat.unref();

  let checks = 0;
  /** Looks each distinct token of the given clients up once; closes the revoked and expired. */
  const recheck = (group: Iterable<Client>) => {
    const byToken = new Map<string, Client[]>();
    for (const c of group) {
      const key = `${c.accountId}\u0000${c.tokenId}`;
      byToken.set(key, [...(byToken.get(key) ?? []), c]);
    }
    for (const [key, tokenClients] of byToken) {
      const [accountId, tokenId] = key.split('\u0000');
      checks++;
      relay.tokens
        .state(accountId, tokenId)
        .then(({ token, plan }) => {
          const expired = token?.expires_ms != null && token.expires_ms <= Date.now();
          if (!token || plan === null || expired) {
            for (const c of tokenClients)
              close(c, 1008, expired ? 'token expired' : 'token revoked');
          }
        })
        .catch(() => undefined);
    }
  };

  const resubscribedAccounts = new Set<string>();
  let resubscribedTimer: NodeJS.Timeout | null = null;
  const recheckSoon = (accountId: string) => {
    resubscribedAccounts.add(accountId);
    if (resubscribedTimer) return;
    resubscribedTimer = setTimeout(() => {
      resubscribedTimer = null;
      const accounts = new Set(resubscribedAccounts);
      resubscribedAccounts.clear();
      recheck([...clients].filter((c) => accounts.has(c.accountId)));
    }, RESUBSCRIBED_RECHECK_DELAY_MS);
    resubscribedTimer.unref();
  };

  // The slow safety net behind the pushed revocations and expiry timers.
  const safetyCheck = setInterval(() => recheck(clients), config.wsTokenRecheckMs);
  safetyCheck.unref();

  const stopTimers = () => {
    clearInterval(heartbeat);
    clearInterval(safetyCheck);
    if (resubscribedTimer) clearTimeout(resubscribedTimer);
  };
  server.on('close', stopTimers);

  return {
    closeAll(code, reason) {
      stopTimers();
      for (const client of clients) close(client, code, reason);
    },
    clientCount: () => clients.size,
    tokenChecks: () => checks,
  };
}
