/**
 * Verification secrets at rest. They must be usable to check signatures, so
 * they are stored; with RELAY_WEBHOOK_SECRET_KEY set they are stored sealed
 * with AES-256-GCM under that key (bound to the webhook id), so a copy of Redis
 * or of its backups does not reveal them. Secrets stored before the key was set
 * stay readable.
 */
import crypto from 'node:crypto';

const SEALED = 'enc1:';

export function sealSecret(secret: string, key: Buffer | null, webhookId: string): string {
  if (!key) return secret;
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/**
 * The secret in clear. A sealed one needs the key it was sealed with; without
 * it this throws a plain Error: logged, and answered as a 500 (the provider
 * retries later, once the pod has the right key).
 */
export function openSecret(stored: string, key: Buffer | null, webhookId: string): string {
  if (!stored.startsWith(SEALED)) return stored;
  if (!key) {
    throw new Error(
      `webhook ${webhookId}: its secret is sealed but RELAY_WEBHOOK_SECRET_KEY is not set`,
    );
  }
  const raw = Buffer.from(stored.slice(SEALED.length), 'base64url');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      `webhook ${webhookId}: its secret was sealed with another RELAY_WEBHOOK_SECRET_KEY`,
    );
  }
}
