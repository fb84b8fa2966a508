/** Helpers of the webhook tests (not a test file): creating webhooks, posting to them, signing. */
import crypto from 'node:crypto';
import type { TestApp } from '../../helpers/app';
import type { Reply } from '../ext/client';

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

/** POSTs (or PUTs) exact bytes to a webhook path with the given headers. */
export async function deliver(
  app: TestApp,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
  method: 'post' | 'put' = 'post',
): Promise<Reply> {
  const req = app.http[method](path);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    req.set('Content-Type', 'application/octet-stream');
  }
  const res = await req.send(Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
  return { status: res.status, body: res.body };
}

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
