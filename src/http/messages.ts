/** The message endpoints (send, batch, pull, ack; docs/api/messages.md) and the extensions (extend, purge, redrive). */
import type { Request } from 'express';
import { invalidField } from '../errors';
import { newMessage, type PullResult, type Relay } from '../relay';
import { describeIdRule, isValidId } from '../schemas/ids';
import {
  LIMITS,
  validateAck,
  validateBatch,
  validateExtend,
  validateMessage,
  validatePull,
  validateRedrive,
} from '../schemas/requests';
import type { Caller } from '../types';
import { answerSignal } from '../web/answerSignal';
import { objectBody, objectBodyText } from '../web/body';
import { EndpointTable } from '../web/endpointTable';
import { RawJson, resource } from '../web/route';
import { requestAuth, requestCaller } from '../web/caller';
import { batchBodyTexts, compactBodyText } from './jsonText';

/**
 * The busiest endpoints, in a table answered without a router (src/web/endpointTable.ts):
 * app.ts puts it in front of the Express app, after the request log, the body reader and
 * the caller.
 */
export function messageEndpoints(relay: Relay): EndpointTable {
  const router = new EndpointTable();

  /**
   * The caller and channel of a message request, before its one script call (which checks
   * the token, the scope and the rate limits). A missing or malformed credential is a 401
   * with no Redis; a bad channel id is a 400 once the token is found good (not counted).
   */
  async function channelCaller(req: Request): Promise<{ caller: Caller; channel: string }> {
    const caller = requestCaller(req);
    const channel = String(req.params.channelId);
    if (!isValidId(channel)) {
      await relay.authorize({ ...caller, count: false });
      throw invalidField(describeIdRule('channelId'));
    }
    return { caller, channel };
  }

  /**
   * Reads the body; a body that fails is answered with its 400 once the caller is checked
   * and counted (authorize), as it would have been by the operation's script.
   */
  async function parsed<T>(caller: Caller, channel: string, read: () => T): Promise<T> {
    try {
      return read();
    } catch (err) {
      await relay.authorize(caller, channel);
      throw err;
    }
  }

  const pullJson = (r: PullResult) =>
    new RawJson(`{"message_backlog_count":${r.backlogCount},"messages":[${r.messages.join(',')}]}`);

  const base = '/v1/relay/channels/:channelId/messages';

  resource(router, base, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const message = await parsed(caller, channel, () => {
        const { value, text } = objectBodyText(req.body);
        return newMessage(validateMessage(value), { sentBody: compactBodyText(text) });
      });
      const { ids, routed } = await relay.send(caller, channel, [message]);
      // a channel with routes: its copies (the first copy's id is the id; none: null)
      return routed ? { id: ids[0], routed: routed[0] } : { id: ids[0] };
    },
  });

  resource(router, `${base}/batch`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const messages = await parsed(caller, channel, () => {
        const { value, text } = objectBodyText(req.body);
        const input = validateBatch(value);
        const sent = batchBodyTexts(text);
        return input.messages.map((m, i) =>
          newMessage(m, {
            defaultDelay: input.delay_seconds,
            where: `messages[${i}]`,
            sentBody: sent[i],
          }),
        );
      });
      const { ids, routed } = await relay.send(caller, channel, messages);
      return routed ? { ids, routed } : { ids };
    },
  });

  resource(router, `${base}/pull`, {
    post: async (req, res) => {
      const { caller, channel } = await channelCaller(req);
      const input = await parsed(caller, channel, () => validatePull(objectBody(req.body)));
      const options = {
        // None in the request: the channel's visibility_timeout_ms setting, else the default.
        visibilityTimeoutMs: input.visibility_timeout_ms ?? null,
        batchSize: input.batch_size ?? LIMITS.defaultPullBatch,
      };
      // A client that has left (even while the request was authenticated) leases nothing;
      // one that leaves while the answer is being written gives its leases back.
      const result = await relay.pull({
        caller,
        channel,
        options,
        waitMs: input.wait_ms ?? 0,
        signal: answerSignal(res),
      });
      return pullJson(result);
    },
  });

  resource(router, `${base}/ack`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const input = await parsed(caller, channel, () => {
        const body = validateAck(objectBody(req.body));
        if (body.lease_ids === undefined && body.retries === undefined) {
          throw invalidField('required field lease_ids is missing');
        }
        return body;
      });
      const retries = (input.retries ?? []).map((r) => ({
        leaseId: r.lease_id,
        delayMs: Math.round((r.delay_seconds ?? 0) * 1000),
      }));
      const result = await relay.ack(caller, channel, input.lease_ids ?? [], retries);
      return input.retries === undefined
        ? { acked_count: result.ackedCount }
        : { acked_count: result.ackedCount, retried_count: result.retriedCount };
    },
  });

  resource(router, `${base}/extend`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const input = await parsed(caller, channel, () => validateExtend(objectBody(req.body)));
      const extended = await relay.extend(
        caller,
        channel,
        input.lease_ids,
        input.visibility_timeout_ms ?? null,
      );
      return { extended_count: extended };
    },
  });

  /** A channel request whose operation is not one script call: authorize, then the operation. */
  async function channelRequest(req: Request) {
    const { channel } = await channelCaller(req);
    return { auth: await requestAuth(req, relay, channel), channel };
  }

  resource(router, `${base}/purge`, {
    post: async (req) => {
      const { auth, channel } = await channelRequest(req);
      objectBody(req.body);
      return { purged_count: await relay.channels.purge(auth, channel) };
    },
  });

  resource(router, `${base}/redrive`, {
    post: async (req) => {
      const { auth, channel } = await channelRequest(req);
      const input = validateRedrive(objectBody(req.body));
      const moved = await relay.channels.redrive(auth, channel, input.to ?? null, input.max);
      return { moved_count: moved };
    },
  });

  resource(router, `${base}/subscribe`, {
    get: async (req) => {
      await channelRequest(req);
      throw invalidField('this endpoint needs a WebSocket upgrade (Upgrade: websocket)');
    },
  });

  return router;
}
