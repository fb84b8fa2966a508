/**
 * A channel's routes (issue 27, docs/api/routes.md): stored as the API shows them with a
 * version (lua/routes_set.lua), and the send that stores a message's copies in the targets a
 * pod chose by evaluating them (lua/send_routed.lua), one call that refuses (ROUTES_CHANGED)
 * when the routes it evaluated are not the channel's routes any more.
 */
import type { StoreContext } from './context';
import { routesKey } from './keys';
import { compactUuid, uuidText } from './records';
import { callerArgs } from './scripts/define';
import { routesSetScript, type RoutesSetArgs } from './scripts/routesSet';
import { sendRoutedScript, type SendRoutedArgs, type SendRoutedReply } from './scripts/sendRouted';
import type { RouteStore, RoutedCopy } from './types';

export function createRouteStore(ctx: StoreContext): RouteStore {
  return {
    async get(account, channel) {
      const [json, version] = await ctx.command((redis) =>
        redis.hmget(routesKey(account), channel, `v:${channel}`),
      );
      return json === null || version === null ? { json: null, version: '0' } : { json, version };
    },

    async set(account, channel, json, targets) {
      const version = await ctx.run<number, RoutesSetArgs>(
        routesSetScript,
        { account, channel },
        { channel, routes_json: json },
        targets,
      );
      return String(version);
    },

    async remove(account, channel) {
      const done = await ctx.run<number, RoutesSetArgs>(
        routesSetScript,
        { account, channel },
        { channel, routes_json: '' },
      );
      return done >= 0;
    },

    async send(caller, channel, version, targets, messages, options = {}) {
      const account = caller.accountId;
      const tail: (string | number)[] = [...targets, messages.length];
      for (const m of messages) {
        tail.push(
          m.delayMs ?? '',
          m.size,
          m.contentType,
          m.dedupId ?? '',
          m.metadataJson.length,
          m.metadataJson,
          m.bodyJson,
          m.groupId ?? '',
          m.copies.length,
        );
        for (const copy of m.copies) tail.push(copy.target + 1, compactUuid(copy.id));
      }
      const cap = options.sizeCap;
      if (cap) tail.push(cap.setting, cap.planLimit, ...cap.sizes);
      const reply = await ctx.run<SendRoutedReply, SendRoutedArgs>(
        sendRoutedScript,
        { account, channel, caller, webhooks: options.webhookId !== undefined, channels: targets },
        {
          ...callerArgs(caller),
          channel,
          must_exist: options.mustExist ? '1' : '0',
          webhook_id: options.webhookId ?? '',
          route_version: version,
          fanout_window_ms: ctx.fanout.windowMs,
          c: targets.length,
        },
        tail,
      );
      const [flat, lowered, pending] = reply;
      const copies: RoutedCopy[][] = flat.map((entries) => {
        const out: RoutedCopy[] = [];
        for (let i = 0; i < entries.length; i += 3) {
          out.push({
            channel: targets[Number(entries[i]) - 1],
            id: uuidText(String(entries[i + 1])),
          });
        }
        // a FIFO answer's sequence number: the first copy's (SQS's SendMessage shows one)
        options.sequenceNumbers?.push(entries.length > 0 ? String(entries[2]) : '');
        return out;
      });
      const stored = new Set(copies.flat().map((c) => c.id)).size;
      ctx.metrics.count('sent', stored);
      for (let i = 0; i < pending.length; i += 2) {
        ctx.fanout.schedule(account, targets[pending[i] - 1], pending[i + 1]);
      }
      await ctx.lowerDue(account, lowered);
      await ctx.replication.confirm(account);
      return copies;
    },
  };
}
