/**
 * The destinations API (docs/api/destinations.md): create, list, show, change, delete a
 * channel's push destination, its attempts log and the redrive of the messages it gave up
 * on. Callers are tokens allowed to use the channel and owner sessions, as for webhooks.
 */
import crypto from 'node:crypto';
import { Router, type Request } from 'express';
import { invalidField } from '../errors';
import type { DestinationRecord, Relay } from '../relay';
import { objectBody } from '../web/body';
import { requestCaller } from '../web/caller';
import { channelParam } from '../web/params';
import { resource } from '../web/route';
import type { Deliveries } from './deliveries';
import { validateCreate, validatePatch } from './schema';
import { newSecret } from './signing';

/** How long a rotated-out secret still signs. */
const ROTATION_MS = 24 * 3600_000;
const ID = /^dst_[0-9a-f]{16}$/;

function failingSince(reason: string | null): string | null {
  const m = reason === null ? null : /^failing since (\d+)$/.exec(reason);
  return m ? `failing since ${new Date(Number(m[1])).toISOString()}` : reason;
}

/** A destination as the API shows it: every field but the secret. */
export function publicDestination(d: DestinationRecord) {
  return {
    id: d.id,
    url: d.config.url,
    headers: d.config.headers,
    timeout_ms: d.config.timeout_ms,
    state: d.state,
    signing: d.config.signing,
    retry: d.config.retry,
    rate_limit: d.config.rate_limit,
    parallelism: d.config.parallelism,
    created_at: d.created_ms,
  };
}

function detailed(d: DestinationRecord) {
  return {
    ...publicDestination(d),
    last_success_at: d.last_success_ms,
    last_failure_at: d.last_failure_ms,
    last_failure: d.last_failure,
    consecutive_failures: d.consecutive_failures,
    disabled_reason: failingSince(d.disabled_reason),
    circuit_open_until: d.open_until_ms > Date.now() ? d.open_until_ms : null,
    dead_count: d.dead_count,
  };
}

function idParam(req: Request): string {
  const id = String(req.params.destinationId);
  if (!ID.test(id)) throw invalidField('destination id must be dst_ and 16 hexadecimal characters');
  return id;
}

function intParam(value: unknown, name: string, min: number, max: number, def: number): number {
  if (value === undefined) return def;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max)
    throw invalidField(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

export function destinationsRouter(relay: Relay, deliveries: Deliveries | null): Router {
  const router = Router();
  const base = '/v1/relay/channels/:channelId/destinations';

  async function channelCaller(req: Request) {
    const caller = await relay.authorize(requestCaller(req));
    return { caller, channel: channelParam(req) };
  }

  resource(router, base, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const input = validateCreate(objectBody(req.body));
      const id = `dst_${crypto.randomBytes(8).toString('hex')}`;
      const secret = newSecret();
      await relay.destinations.create(caller, channel, id, {
        config: input.config,
        secret,
        state: input.paused ? 'paused' : undefined,
      });
      const record = await relay.destinations.get(caller, channel, id);
      deliveries?.wake(caller.accountId, channel);
      return { ...publicDestination(record), secret };
    },
    get: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const list = await relay.destinations.list(caller, channel);
      return { destinations: list.map(publicDestination) };
    },
  });

  resource(router, `${base}/:destinationId`, {
    get: async (req) => {
      const { caller, channel } = await channelCaller(req);
      return detailed(await relay.destinations.get(caller, channel, idParam(req)));
    },
    patch: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const id = idParam(req);
      const body = objectBody(req.body);
      const current = await relay.destinations.get(caller, channel, id);
      const patch = validatePatch(body, current.config);
      const secret = patch.rotateSecret ? newSecret() : undefined;
      const state =
        patch.state ??
        (patch.paused === true ? 'paused' : patch.paused === false ? 'active' : undefined);
      if (patch.paused === false && current.state === 'disabled' && patch.state === undefined)
        throw invalidField('the destination is disabled: re-enable it with {"state": "active"}');
      const updated = await relay.destinations.update(caller, channel, id, {
        config: patch.config,
        state,
        secret,
        previousMs: secret ? ROTATION_MS : 0,
      });
      deliveries?.wake(caller.accountId, channel);
      return secret ? { ...detailed(updated), secret } : detailed(updated);
    },
    delete: async (req) => {
      const { caller, channel } = await channelCaller(req);
      await relay.destinations.remove(caller, channel, idParam(req));
      return { deleted: true };
    },
  });

  resource(router, `${base}/:destinationId/attempts`, {
    get: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const limit = intParam(req.query.limit, 'limit', 1, 100, 20);
      const offset = intParam(req.query.cursor, 'cursor', 0, 1_000_000, 0);
      const { entries, more } = await relay.destinations.attempts(
        caller,
        channel,
        idParam(req),
        offset,
        limit,
      );
      return {
        attempts: entries.map((e) => JSON.parse(e) as unknown),
        next_cursor: more ? String(offset + entries.length) : null,
      };
    },
  });

  resource(router, `${base}/:destinationId/redrive`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const body = objectBody(req.body);
      const max =
        body.max === undefined
          ? 1000
          : typeof body.max === 'number' &&
              Number.isInteger(body.max) &&
              body.max >= 1 &&
              body.max <= 10_000
            ? body.max
            : (() => {
                throw invalidField('max must be an integer from 1 to 10000');
              })();
      const moved = await relay.destinations.redrive(caller, channel, idParam(req), max);
      deliveries?.wake(caller.accountId, channel);
      return { moved_count: moved };
    },
  });

  return router;
}
