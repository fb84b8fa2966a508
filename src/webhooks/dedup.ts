/**
 * The delivery id a provider repeats when it retries, used as the message's
 * dedup id (so a retry within the channel's dedup window stores nothing new):
 * the configured dedup_header first, else X-GitHub-Delivery (github),
 * webhook-id / svix-id (standard-webhooks), or the top-level "id" of a JSON
 * body (stripe). Ids over 128 characters are replaced by their sha256.
 */
import crypto from 'node:crypto';
import { LIMITS } from '../schemas/requests';
import type { WebhookRecord } from '../relay';
import { deliveryId as standardWebhooksId } from './verify/standardWebhooks';

function stripeEventId(body: Buffer): string {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const id = (value as Record<string, unknown>).id;
      if (typeof id === 'string') return id;
    }
  } catch {
    // not JSON: no delivery id
  }
  return '';
}

function schemeDeliveryId(
  webhook: WebhookRecord,
  headers: Record<string, string>,
  body: Buffer,
): string {
  switch (webhook.verify?.scheme) {
    case 'github':
      return headers['x-github-delivery'] ?? '';
    case 'standard-webhooks':
      return standardWebhooksId(headers);
    case 'stripe':
      return stripeEventId(body);
    default:
      return '';
  }
}

export function dedupIdOf(
  webhook: WebhookRecord,
  headers: Record<string, string>,
  body: Buffer,
): string | null {
  const configured = webhook.dedup_header ? (headers[webhook.dedup_header] ?? '') : '';
  const id = (configured || schemeDeliveryId(webhook, headers, body)).trim();
  if (id === '') return null;
  if (id.length <= LIMITS.maxDedupIdChars) return id;
  return `sha256:${crypto.hash('sha256', id, 'hex')}`;
}
