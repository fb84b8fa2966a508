/**
 * The embedded quick start's credentials as files in the data directory (all
 * mode 0600) and as the block of lines that prints them: the owner's dashboard
 * sign-in link, the relay token with curl lines, and the AWS keys with their
 * region for the SQS endpoint. Reading them starts nothing, so `relayq
 * credentials` can print them while a relayq runs.
 */
import fs from 'node:fs';
import path from 'node:path';

export const LOCAL_ACCOUNT = 'local';
/** the relay token of the local account */
export const RELAY_TOKEN_FILE = 'local-token';
/** the owner token of the local account (dashboard sign-in) */
export const OWNER_TOKEN_FILE = 'local-owner-token';
/** `export AWS_...=...` lines of the local account's AWS key pair, to `source` */
export const AWS_CREDENTIALS_FILE = 'local-aws-credentials';
/**
 * The region the quick start's AWS examples name. relayq accepts any region in
 * a signature; the AWS CLI and boto3 refuse to run without one.
 */
export const QUICK_START_REGION = 'us-east-1';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface LocalCredentials {
  ownerToken: string;
  relayToken: string;
  /** null until the SQS part of the quick start made them */
  aws: AwsCredentials | null;
}

/** The dashboard URL that signs its opener in with the owner token (kept in the fragment). */
export function signInLink(base: string, ownerToken: string): string {
  return `${base}/dashboard/#owner_token=${ownerToken}`;
}

/**
 * The AWS credentials file: the region twice, as the AWS CLI and boto3
 * (AWS_DEFAULT_REGION) and the JavaScript SDK (AWS_REGION) each read one.
 */
export function awsCredentialsText(aws: AwsCredentials): string {
  return (
    `export AWS_ACCESS_KEY_ID=${aws.accessKeyId}\n` +
    `export AWS_SECRET_ACCESS_KEY=${aws.secretAccessKey}\n` +
    `export AWS_DEFAULT_REGION=${aws.region}\n` +
    `export AWS_REGION=${aws.region}\n`
  );
}

/** The values of `export NAME=value` lines. */
function exportsOf(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const match of text.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)) values.set(match[1], match[2]);
  return values;
}

/** The AWS credentials file's key pair (files from before the region line get the default). */
export function readAwsCredentials(file: string): AwsCredentials | null {
  if (!fs.existsSync(file)) return null;
  const values = exportsOf(fs.readFileSync(file, 'utf8'));
  const accessKeyId = values.get('AWS_ACCESS_KEY_ID');
  const secretAccessKey = values.get('AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId || !secretAccessKey) return null;
  const region = values.get('AWS_DEFAULT_REGION') ?? values.get('AWS_REGION') ?? QUICK_START_REGION;
  return { accessKeyId, secretAccessKey, region };
}

/** The saved credentials, or null when the quick start has not made its tokens in this directory. */
export function readLocalCredentials(dataDir: string): LocalCredentials | null {
  const read = (name: string) => {
    const file = path.join(dataDir, name);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  };
  const ownerToken = read(OWNER_TOKEN_FILE);
  const relayToken = read(RELAY_TOKEN_FILE);
  if (!ownerToken || !relayToken) return null;
  return {
    ownerToken,
    relayToken,
    aws: readAwsCredentials(path.join(dataDir, AWS_CREDENTIALS_FILE)),
  };
}

/** The lines that print the credentials for a relay at `base` (http://localhost:PORT). */
export function credentialsText(base: string, credentials: LocalCredentials): string {
  const demo = `${base}/v1/relay/channels/demo/messages`;
  let text =
    `Open the dashboard (this link signs you in as the account's owner):\n  ${signInLink(base, credentials.ownerToken)}\n\n` +
    `Relay token, for producers and consumers:\n  export RELAY_TOKEN=${credentials.relayToken}\n\n` +
    `Send a message:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{"body":{"hello":"world"}}' ${demo}\n` +
    `Pull it:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{}' ${demo}/pull\n\n`;
  if (credentials.aws) {
    const endpoint = `${base}/sqs`;
    text +=
      `SQS protocol (docs/sqs.md) at ${endpoint}, with the AWS credentials of "${LOCAL_ACCOUNT}":\n` +
      awsCredentialsText(credentials.aws).replace(/^(?=.)/gm, '  ') +
      `  aws sqs create-queue --queue-name demo --endpoint-url ${endpoint}\n\n`;
  }
  return text;
}
