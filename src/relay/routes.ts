/**
 * Routes (issue 27, docs/api/routes.md): a channel's routes fan each message that arrives at
 * it out to the channels whose filter it matches, in one atomic step. Here: the routes as the
 * API takes them (checked, filters compiled by src/filters), each pod's cache of every
 * channel's routes with their version, and the send every entrance calls: it evaluates the
 * routes it knows and the store's one call stores the copies only if those are still the
 * channel's routes (else ROUTES_CHANGED: the routes are read again and evaluated again), so
 * each send sees the old or the new routes, never a mix.
 */
import crypto from 'node:crypto';
import { RelayError, invalidField, unavailable } from '../errors';
import { FilterError, filterInputOf, parseFilter, type Filter } from '../filters';
import { describeIdRule, isValidId } from '../schemas/ids';
import { scriptFailure } from '../store/storeErrors';
import type { NewMessage, RoutedCopy, RoutedMessage, SendOptions } from '../store/types';
import type { Caller } from '../types';
import { checkChannelScope, type AuthContext } from './authorize';
import type { RelayDeps } from './deps';

/** At most this many routes on one channel. */
export const MAX_ROUTES = 50;

/** A channel's routes as the API shows them (GET) and takes them (PUT). */
export interface RoutesBody {
  routes: { to: string; filter?: Record<string, unknown> }[];
  keep: boolean;
  /** 'drop', or the channel that gets a copy when no route matches */
  unmatched: string;
}

/** Routes ready to evaluate, of one version. */
export interface CompiledRoutes {
  version: string;
  body: RoutesBody;
  routes: { to: string; filter: Filter | null }[];
}

/** What a send stored: per message its first copy's id (null: none) and, with routes, its copies. */
export interface SendResult {
  ids: (string | null)[];
  /** per message its copies in order; null when the channel has no routes */
  routed: RoutedCopy[][] | null;
}

const ROUTE_KEYS = new Set(['to', 'filter']);
const BODY_KEYS = new Set(['routes', 'keep', 'unmatched']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a PUT body for channel; a 400 naming the field (filters: their path). */
export function parseRoutes(
  channel: string,
  value: unknown,
): { body: RoutesBody; compiled: CompiledRoutes['routes'] } {
  if (!isObject(value)) throw invalidField('the body must be a JSON object');
  for (const key of Object.keys(value)) {
    if (!BODY_KEYS.has(key)) throw invalidField(`unknown field ${key}`);
  }
  const list = value.routes;
  if (list === undefined) throw invalidField('required field routes is missing');
  if (!Array.isArray(list)) throw invalidField('routes must be an array');
  if (list.length > MAX_ROUTES) {
    throw invalidField(`routes must hold at most ${MAX_ROUTES} routes (it holds ${list.length})`);
  }
  const seen = new Map<string, number>();
  const routes: RoutesBody['routes'] = [];
  const compiled: CompiledRoutes['routes'] = [];
  list.forEach((route: unknown, i) => {
    const at = `routes[${i}]`;
    if (!isObject(route)) throw invalidField(`${at} must be a JSON object`);
    for (const key of Object.keys(route)) {
      if (!ROUTE_KEYS.has(key)) throw invalidField(`unknown field ${at}.${key}`);
    }
    const to = route.to;
    if (to === undefined) throw invalidField(`required field ${at}.to is missing`);
    if (!isValidId(to)) throw invalidField(describeIdRule(`${at}.to`));
    if (to === channel) {
      throw invalidField(`${at}.to must name another channel than ${channel}, the one routed`);
    }
    const before = seen.get(to);
    if (before !== undefined) {
      throw invalidField(`${at}.to names channel ${to} again (routes[${before}].to)`);
    }
    seen.set(to, i);
    let filter: Filter | null = null;
    if (route.filter !== undefined) {
      try {
        filter = parseFilter(route.filter, `${at}.filter`);
      } catch (err) {
        if (err instanceof FilterError) throw invalidField(err.message);
        throw err;
      }
      routes.push({ to, filter: filter.source as Record<string, unknown> });
    } else {
      routes.push({ to });
    }
    compiled.push({ to, filter });
  });
  const keep = value.keep ?? false;
  if (typeof keep !== 'boolean') throw invalidField('keep must be true or false');
  const unmatched = value.unmatched ?? 'drop';
  if (unmatched !== 'drop') {
    if (!isValidId(unmatched)) {
      throw invalidField(
        `unmatched must be "drop" or a channel id: ${describeIdRule('a channel id')}`,
      );
    }
    if (unmatched === channel) {
      throw invalidField(
        `unmatched must name another channel than ${channel}, the one routed (keep: true keeps a copy there)`,
      );
    }
  }
  return { body: { routes, keep, unmatched }, compiled };
}

/** The channels a channel's routes store copies in (not the channel itself), without repeats. */
export function routeTargets(body: RoutesBody): string[] {
  const targets = body.routes.map((r) => r.to);
  if (body.unmatched !== 'drop' && !targets.includes(body.unmatched)) {
    targets.push(body.unmatched);
  }
  return targets;
}

/** What a message's routes choose: its copies' channels in order, and how it matched. */
export function chooseChannels(
  channel: string,
  routes: CompiledRoutes,
  message: { contentType: string; bodyJson: string; metadataJson: string },
): { channels: string[]; matched: number } {
  const input = filterInputOf(message);
  const channels: string[] = routes.body.keep ? [channel] : [];
  let matched = 0;
  for (const route of routes.routes) {
    if (route.filter === null || route.filter.test(input)) {
      channels.push(route.to);
      matched++;
    }
  }
  if (matched === 0 && routes.body.unmatched !== 'drop') channels.push(routes.body.unmatched);
  return { channels, matched };
}

/** The message's metadata without a route key of its own (the copies' route is the relay's). */
function withoutRoute(message: NewMessage): NewMessage {
  if (!message.metadataJson.includes('"route"')) return message;
  const metadata = JSON.parse(message.metadataJson) as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(metadata, 'route')) return message;
  delete metadata.route;
  const metadataJson = JSON.stringify(metadata);
  const size =
    message.size - Buffer.byteLength(message.metadataJson) + Buffer.byteLength(metadataJson);
  return { ...message, metadataJson, size };
}

const CACHE_MAX = 10_000;
/** How many times a send evaluates routes that changed under it before it gives up (503). */
const MAX_ROUNDS = 8;

const NO_ROUTES = (version: string): CompiledRoutes | { version: string; routes: null } => ({
  version,
  routes: null,
});

type Known = CompiledRoutes | { version: string; routes: null };

export function createRoutes(deps: RelayDeps) {
  const { store } = deps;
  /** account \0 channel -> the routes this pod last read (absent: believed to have none) */
  const known = new Map<string, Known>();

  function remember(key: string, value: Known): Known {
    if (known.size >= CACHE_MAX) known.clear();
    known.set(key, value);
    return value;
  }

  /** Reads the channel's routes and compiles them (they were checked when set). */
  async function load(account: string, channel: string): Promise<Known> {
    const { json, version } = await store.routes.get(account, channel);
    const key = `${account}\u0000${channel}`;
    if (json === null) return remember(key, NO_ROUTES(version));
    const body = JSON.parse(json) as RoutesBody;
    const routes = body.routes.map((r, i) => ({
      to: r.to,
      filter: r.filter === undefined ? null : parseFilter(r.filter, `routes[${i}].filter`),
    }));
    return remember(key, { version, body, routes });
  }

  const changed = (err: unknown) => scriptFailure(err)?.code === 'ROUTES_CHANGED';

  /** Stores messages by the routes of the version `routes` is of (ROUTES_CHANGED if not). */
  async function sendRouted(
    caller: Caller,
    channel: string,
    routes: CompiledRoutes,
    messages: NewMessage[],
    options: SendOptions,
  ): Promise<SendResult> {
    const targets: string[] = [];
    const index = new Map<string, number>();
    let matched = 0;
    let unmatched = 0;
    const routed: RoutedMessage[] = messages.map((m) => {
      const message = withoutRoute(m);
      const chosen = chooseChannels(channel, routes, message);
      matched += chosen.matched;
      if (chosen.matched === 0) unmatched++;
      const copies = chosen.channels.map((to, i) => {
        let target = index.get(to);
        if (target === undefined) {
          target = targets.length;
          targets.push(to);
          index.set(to, target);
        }
        return { target, id: i === 0 ? message.id : crypto.randomUUID() };
      });
      return { ...message, copies };
    });
    const copies = await store.routes.send(
      caller,
      channel,
      routes.version,
      targets,
      routed,
      options,
    );
    if (matched > 0) deps.metrics.routed.inc({ result: 'matched' }, matched);
    if (unmatched > 0) deps.metrics.routed.inc({ result: 'unmatched' }, unmatched);
    return { ids: copies.map((c) => c[0]?.id ?? null), routed: copies };
  }

  return {
    /**
     * Stores messages that arrived at a channel: as they are when it has no routes, else as
     * the copies its routes choose. One store call when this pod knows the channel's routes.
     */
    async send(
      caller: Caller,
      channel: string,
      messages: NewMessage[],
      options: SendOptions = {},
    ): Promise<SendResult> {
      const key = `${caller.accountId}\u0000${channel}`;
      let routes: Known = known.get(key) ?? NO_ROUTES('0');
      let who = caller;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        try {
          if (routes.routes === null) {
            const ids = await store.queue.send(who, channel, messages, {
              ...options,
              routeVersion: routes.version,
            });
            return { ids, routed: null };
          }
          return await sendRouted(who, channel, routes, messages, options);
        } catch (err) {
          if (!changed(err)) throw err;
          // the script counted the request already: the next round does not count it again
          who = { ...caller, count: false };
          routes = await load(caller.accountId, channel);
        }
      }
      throw unavailable();
    },

    /** The channel's routes (none: an empty list, keep false, unmatched "drop"). */
    async get(auth: AuthContext, channel: string): Promise<RoutesBody> {
      checkChannelScope(auth, channel);
      const routes = await load(auth.accountId, channel);
      return routes.routes === null ? { routes: [], keep: false, unmatched: 'drop' } : routes.body;
    },

    /** Replaces the channel's routes for every later send, on every pod. */
    async set(auth: AuthContext, channel: string, value: unknown): Promise<RoutesBody> {
      checkChannelScope(auth, channel);
      const { body } = parseRoutes(channel, value);
      const targets = routeTargets(body);
      for (const target of targets) {
        if (auth.channels !== null && !auth.channels.includes(target)) {
          const field =
            target === body.unmatched && !body.routes.some((r) => r.to === target)
              ? 'unmatched'
              : `routes[${body.routes.findIndex((r) => r.to === target)}].to`;
          throw new RelayError(
            'channel_scope',
            `this token may not use channel ${target} (${field}), so it may not route into it`,
          );
        }
      }
      await store.routes.set(auth.accountId, channel, JSON.stringify(body), targets);
      known.delete(`${auth.accountId}\u0000${channel}`);
      return body;
    },

    /** Removes the channel's routes; false when it had none. */
    async remove(auth: AuthContext, channel: string): Promise<boolean> {
      checkChannelScope(auth, channel);
      const removed = await store.routes.remove(auth.accountId, channel);
      known.delete(`${auth.accountId}\u0000${channel}`);
      return removed;
    },

    /** Which of the channel's routes a message matches, and the channels it would be copied to. */
    async test(
      auth: AuthContext,
      channel: string,
      message: { contentType: string; bodyJson: string; metadataJson: string },
    ): Promise<{ matched: number[]; channels: string[] }> {
      checkChannelScope(auth, channel);
      const routes = await load(auth.accountId, channel);
      if (routes.routes === null) return { matched: [], channels: [channel] };
      const input = filterInputOf(message);
      const matched: number[] = [];
      routes.routes.forEach((r, i) => {
        if (r.filter === null || r.filter.test(input)) matched.push(i);
      });
      return { matched, channels: chooseChannels(channel, routes, message).channels };
    },
  };
}

export type Routes = ReturnType<typeof createRoutes>;
