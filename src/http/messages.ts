/** The message endpoints (send, batch, pull, ack; docs/api/messages.md) and the extensions (extend, purge, redrive). */
import crypto from 'node:crypto';
import { Router, type Request } from 'express';
import { checkChannelScope } from '../auth/authenticate';
import { AppError, badRequest } from '../errors';
import { describeIdRule, isValidId } from '../schemas/ids';
import {
  LIMITS,
  type MessageInput,
  validateAck,
  validateBatch,
  validateExtend,
  validateMessage,
  validatePull,
  validateRedrive,
} from '../schemas/requests';
import type { Caller } from '../store/scripts/define';
import type { NewMessage, PullResult } from '../store/types';
import { requestAuth, requestCaller } from './caller';
import { objectBody, objectBodyText } from './body';
import { batchBodyTexts, compactBodyText } from './jsonText';
import { pullMaybeWaiting } from './longPoll';
import type { HttpDeps } from './context';
import { RawJson, resource } from './route';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks a validated message's content type against its body and measures it. sentBody:
 * the body's text in the request when it is exactly what JSON.stringify would make of
 * the body (compactBodyText), stored as it came: no parse-then-stringify for the bodies
 * JavaScript and most clients send.
 */
export function toNewMessage(
  input: MessageInput,
  defaultDelay: number | undefined,
  where: string,
  sentBody?: string,
): NewMessage {
  const contentType = input.content_type ?? 'json';
  const field = where === '' ? 'body' : `${where}.body`;
  if (contentType === 'text' && typeof input.body !== 'string') {
    throw badRequest(`${field} must be a string when content_type is text`);
  }
  if (
    (contentType === 'bytes' || contentType === 'v8') &&
    (typeof input.body !== 'string' || !BASE64.test(input.body))
  ) {
    throw badRequest(`${field} must be a base64 string when content_type is ${contentType}`);
  }
  // (the size is that of the compact serialization, decisions.md: a body sent in
  // another form is stringified)
  const bodyJson = sentBody ?? JSON.stringify(input.body);
  const metadataJson = JSON.stringify(input.metadata ?? {});
  const size = Buffer.byteLength(bodyJson) + Buffer.byteLength(metadataJson);
  if (size > LIMITS.maxMessageBytes) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `${where === '' ? 'message' : where} is ${size} bytes; the limit is ${LIMITS.maxMessageBytes} bytes (body + metadata)`,
    );
  }
  // No delay in the request: the channel's delay_seconds setting applies (in the store).
  const delaySeconds = input.delay_seconds ?? defaultDelay;
  return {
    id: crypto.randomUUID(),
    delayMs: delaySeconds === undefined ? null : Math.round(delaySeconds * 1000),
    size,
    contentType,
    dedupId: input.dedup_id ?? null,
    metadataJson,
    bodyJson,
  };
}

export function channelParam(req: Request): string {
  const channel = String(req.params.channelId);
  if (!isValidId(channel)) throw badRequest(describeIdRule('channelId'));
  return channel;
}

/** The paths messagesRouter answers (as Express matches routes: case-insensitively). */
export const MESSAGE_PATH = /^\/v1\/relay\/channels\/[^/?]+\/messages(?:[/?]|$)/i;

export function messagesRouter(deps: HttpDeps): Router {
  const router = Router();
  const { store } = deps;

  /**
   * The caller and channel of a message request, before its one script call (which checks
   * the token, the scope and the rate limits). A missing or malformed credential is a 401
   * with no Redis; a bad channel id is a 400 once the token is found good (not counted).
   */
  async function channelCaller(req: Request): Promise<{ caller: Caller; channel: string }> {
    const caller = requestCaller(req);
    const channel = String(req.params.channelId);
    if (!isValidId(channel)) {
      await store.accounts.authorize({ ...caller, count: false }, null);
      throw badRequest(describeIdRule('channelId'));
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
      await store.accounts.authorize(caller, channel);
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
        return toNewMessage(validateMessage(value), undefined, '', compactBodyText(text));
      });
      const [id] = await store.queue.send(caller, channel, [message]);
      return { id };
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
          toNewMessage(m, input.delay_seconds, `messages[${i}]`, sent[i]),
        );
      });
      const ids = await store.queue.send(caller, channel, messages);
      return { ids };
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
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      // A client that has left (even while the request was authenticated) leases nothing.
      if (res.closed) gone.abort();
      const result = await pullMaybeWaiting(deps, {
        caller,
        authorize: () => requestAuth(req, deps, channel),
        channel,
        options,
        waitMs: input.wait_ms ?? 0,
        signal: gone.signal,
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
          throw badRequest('required field lease_ids is missing');
        }
        return body;
      });
      const retries = (input.retries ?? []).map((r) => ({
        leaseId: r.lease_id,
        delayMs: Math.round((r.delay_seconds ?? 0) * 1000),
      }));
      const result = await store.queue.ack(caller, channel, input.lease_ids ?? [], retries);
      return input.retries === undefined
        ? { acked_count: result.ackedCount }
        : { acked_count: result.ackedCount, retried_count: result.retriedCount };
    },
  });

  resource(router, `${base}/extend`, {
    post: async (req) => {
      const { caller, channel } = await channelCaller(req);
      const input = await parsed(caller, channel, () => validateExtend(objectBody(req.body)));
      const extended = await store.queue.extend(
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
    return { auth: await requestAuth(req, deps, channel), channel };
  }

  resource(router, `${base}/purge`, {
    post: async (req) => {
      const { auth, channel } = await channelRequest(req);
      objectBody(req.body);
      return { purged_count: await store.channels.purge(auth.accountId, channel) };
    },
  });

  resource(router, `${base}/redrive`, {
    post: async (req) => {
      const { auth, channel } = await channelRequest(req);
      const input = validateRedrive(objectBody(req.body));
      if (input.to !== undefined) {
        checkChannelScope(auth, input.to);
        if (input.to === channel)
          throw badRequest('to must name another channel than the one redriven');
      }
      const moved = await store.channels.redrive(
        auth.accountId,
        channel,
        auth.limits,
        input.to ?? null,
        input.max ?? LIMITS.defaultRedrive,
      );
      return { moved_count: moved };
    },
  });

  resource(router, `${base}/subscribe`, {
    get: async (req) => {
      await channelRequest(req);
      throw badRequest('this endpoint needs a WebSocket upgrade (Upgrade: websocket)');
    },
  });

  return router;
}
