/**
 * The embedded quick start's SQS part: a server key kept in the data directory
 * (mode 0600, so issued AWS secrets survive restarts; deployments set
 * RELAY_SQS_SECRET_KEY instead), and an AWS key pair for the local account,
 * made once and kept in `local-aws-credentials` (mode 0600) with its region.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RelayApp } from '../app';
import type { Config } from '../config';
import {
  AWS_CREDENTIALS_FILE,
  awsCredentialsText,
  LOCAL_ACCOUNT,
  QUICK_START_REGION,
  readAwsCredentials,
} from './credentials';

export { AWS_CREDENTIALS_FILE } from './credentials';
export const SQS_KEY_FILE = 'sqs-secret-key';

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
 * Once the local account exists: makes its AWS key pair (true when made now).
 * A file from before the region was saved gets it.
 */
export async function sqsQuickStart(relay: RelayApp, config: Readonly<Config>): Promise<boolean> {
  const file = path.join(config.dataDir, AWS_CREDENTIALS_FILE);
  const kept = readAwsCredentials(file);
  if (kept) {
    if (!/^export AWS_DEFAULT_REGION=/m.test(fs.readFileSync(file, 'utf8'))) {
      fs.writeFileSync(file, awsCredentialsText(kept), { mode: 0o600 });
    }
    return false;
  }
  if (config.sqsSecretKey === null || !(await relay.relay.accounts.find(LOCAL_ACCOUNT)))
    return false;
  const issued = await relay.relay.tokens.issue(LOCAL_ACCOUNT, {
    name: 'quick start (SQS)',
    aws_credentials: true,
  });
  const aws = {
    accessKeyId: String(issued.aws_access_key_id),
    secretAccessKey: String(issued.aws_secret_access_key),
    region: QUICK_START_REGION,
  };
  fs.writeFileSync(file, awsCredentialsText(aws), { mode: 0o600 });
  return true;
}
