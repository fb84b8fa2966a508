/**
 * The embedded quick start's SQS part: a server key kept in the data directory
 * (mode 0600, so issued AWS secrets survive restarts; deployments set
 * RELAY_SQS_SECRET_KEY instead), and an AWS key pair for the local account,
 * made once and kept in `local-aws-credentials` (mode 0600).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Relay } from '../relay';
import type { Config } from '../config';

export const SQS_KEY_FILE = 'sqs-secret-key';
export const AWS_CREDENTIALS_FILE = 'local-aws-credentials';

export function embeddedSqsSecretKey(dataDir: string): string {
  const file = path.join(dataDir, SQS_KEY_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const key = crypto.randomBytes(32).toString('base64url');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** The config with the data directory's SQS key when none was set. */
export function withEmbeddedSqsKey(config: Readonly<Config>): Readonly<Config> {
  if (config.sqsSecretKey !== null) return config;
  return Object.freeze({ ...config, sqsSecretKey: embeddedSqsSecretKey(config.dataDir) });
}

/**
 * Once the local account exists: makes its AWS key pair on the first start
 * (printed then, with the SQS endpoint), and says where it is afterwards.
 */
export async function sqsQuickStart(
  relay: Relay,
  config: Readonly<Config>,
  port: number,
): Promise<void> {
  const file = path.join(config.dataDir, AWS_CREDENTIALS_FILE);
  const endpoint = `http://localhost:${port}/sqs`;
  if (fs.existsSync(file)) {
    process.stdout.write(`SQS endpoint ${endpoint}; AWS credentials of "local" in ${file}\n\n`);
    return;
  }
  if (config.sqsSecretKey === null || !(await relay.accounts.find('local'))) return;
  const issued = await relay.tokens.issue('local', {
    name: 'quick start (SQS)',
    aws_credentials: true,
  });
  const lines =
    `export AWS_ACCESS_KEY_ID=${issued.aws_access_key_id}\n` +
    `export AWS_SECRET_ACCESS_KEY=${issued.aws_secret_access_key}\n`;
  fs.writeFileSync(file, lines, { mode: 0o600 });
  process.stdout.write(
    `SQS protocol (docs/sqs.md) at ${endpoint}; AWS credentials of "local", kept in ${file}:\n\n` +
      lines.replace(/^/gm, '  ') +
      `  aws sqs create-queue --queue-name demo --endpoint-url ${endpoint}\n\n`,
  );
}
