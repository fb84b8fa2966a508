/**
 * The embedded quick start's SQS server key: made once, kept in the data
 * directory (mode 0600) beside Redis's data, so that issued AWS secrets keep
 * working across restarts. Deployments set RELAY_SQS_SECRET_KEY instead.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SQS_KEY_FILE = 'sqs-secret-key';

export function embeddedSqsSecretKey(dataDir: string): string {
  const file = path.join(dataDir, SQS_KEY_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const key = crypto.randomBytes(32).toString('base64url');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
