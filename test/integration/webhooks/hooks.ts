/** Helpers of the webhook tests (not a test file): creating webhooks, posting to them, signing. */
import crypto from 'node:crypto';
import http from 'node:http';
import type { TestApp } from '../../helpers/app';
import type { Pods } from '../../helpers/pods';
import type { Reply } from '../../helpers/relayClient';

export interface CreatedHook {
  id: string;
  url: string;
  /** the URL's path, for supertest */
  path: string;
}

export async function createHook(
  app: TestApp,
  auth: string,
  channel: string,
  body: object = {},
): Promise<CreatedHook> {
  const res = await app.http
    .post(`/v1/relay/channels/${channel}/webhooks`)
    .set('Authorization', auth)
    .send(body);
  if (res.status !== 200)
    throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`);
  const { id, url } = res.body.result as { id: string; url: string };
  return { id, url, path: new URL(url).pathname };
}

const servers = new Map<TestApp, { server: http.Server; base: string }>();

/** A real HTTP server in front of each pod (started before the file's tests, closed after). */
export function listenOnPods(pods: Pods): void {
  beforeAll(async () => {
    for (const app of [pods.a, pods.b]) await listen(app);
  });
  afterAll(async () => {
    for (const [app, { server }] of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      servers.delete(app);
    }
  });
}

export async function listen(app: TestApp & { baseUrl?: string }): Promise<string> {
  if (app.baseUrl) return app.baseUrl;
  const known = servers.get(app);
  if (known) return known.base;
  const server = http.createServer(app.relay.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  servers.set(app, { server, base });
  return base;
}

export interface RawReply extends Reply {
  headers: http.IncomingHttpHeaders;
}

/** Sends exact bytes to a webhook path over a real connection, as a provider does. */
export async function deliver(
  app: TestApp,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<RawReply> {
  const base = await listen(app);
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method, agent: false, headers: { 'Content-Length': String(bytes.length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          // a refused body may still be on its way: stop sending it
          req.destroy();
          const text = Buffer.concat(chunks).toString('utf8');
          const reply = {
            status: res.statusCode ?? 0,
            body: text === '' ? (undefined as never) : JSON.parse(text),
          };
          // not enumerable: tests compare { status, body } exactly
          Object.defineProperty(reply, 'headers', { value: res.headers, enumerable: false });
          resolve(reply as RawReply);
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!req.destroyed || err.code !== 'ECONNRESET') reject(err);
    });
    req.end(bytes);
  });
}

/** Pulls a channel over a real connection (large replies). */
export async function pullOver(app: TestApp, auth: string, channel: string) {
  const reply = await deliver(app, `/v1/relay/channels/${channel}/messages/pull`, '{}', {
    Authorization: auth,
  });
  if (reply.status !== 200) throw new Error(`pull: ${reply.status}`);
  return reply.body.result as { messages: { body: unknown; content_type: string }[] };
}

export interface WebhookMeta {
  id: string;
  method: string;
  query: string;
  headers: Record<string, string>;
  received_at: number;
  verified: boolean | null;
}

/** metadata.webhook of a pulled message. */
export const hookMeta = (m: { metadata: Record<string, unknown> }): WebhookMeta =>
  (m.metadata as { webhook: WebhookMeta }).webhook;

export const hmacHex = (key: string | Buffer, data: string | Buffer) =>
  crypto.createHmac('sha256', key).update(data).digest('hex');
export const hmacBase64 = (key: string | Buffer, data: string | Buffer) =>
  crypto.createHmac('sha256', key).update(data).digest('base64');

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Stripe's Stripe-Signature header for a body, signed at t. */
export function stripeSignature(secret: string, body: string | Buffer, t = nowSeconds()): string {
  return `t=${t},v1=${hmacHex(secret, Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]))}`;
}

/** Standard Webhooks headers for a body (key = base64 after whsec_). */
export function standardHeaders(
  secret: string,
  id: string,
  body: string | Buffer,
  t = nowSeconds(),
  prefix: 'webhook' | 'svix' = 'webhook',
): Record<string, string> {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = Buffer.concat([Buffer.from(`${id}.${t}.`), Buffer.from(body)]);
  return {
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(t),
    [`${prefix}-signature`]: `v1,${hmacBase64(key, signed)}`,
  };
}
