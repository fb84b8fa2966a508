/**
 * Queues are channels. Queue URL `{base_url}/sqs/{accountId}/{channelId}`
 * (like AWS's https://sqs.<region>.amazonaws.com/<account>/<name>), queue ARN
 * `arn:aws:sqs:<region>:<accountId>:<channelId>`. The base URL is the origin
 * the request was addressed to.
 */
import { SqsError } from './errors';

export function queueUrl(baseUrl: string, accountId: string, channel: string): string {
  return `${baseUrl}/sqs/${encodeURIComponent(accountId)}/${encodeURIComponent(channel)}`;
}

export function queueArn(region: string, accountId: string, channel: string): string {
  return `arn:aws:sqs:${region}:${accountId}:${channel}`;
}

/** The account and queue name a queue URL names (any host: clients may reach us by any name). */
export function parseQueueUrl(url: string): { accountId: string; channel: string } {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = '';
  }
  const match = /\/sqs\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (!match) {
    throw new SqsError(
      'InvalidAddress',
      `The address ${url} is not valid for this endpoint: queue URLs read <base_url>/sqs/<account>/<queue>.`,
    );
  }
  try {
    return { accountId: decodeURIComponent(match[1]), channel: decodeURIComponent(match[2]) };
  } catch {
    throw new SqsError('InvalidAddress', `The address ${url} is not valid for this endpoint.`);
  }
}

/** The account and queue name of `arn:aws:sqs:<region>:<account>:<queue>`, or null. */
export function parseQueueArn(arn: string): { accountId: string; channel: string } | null {
  const match = /^arn:aws[a-z-]*:sqs:[^:]*:([^:]+):([^:]+)$/.exec(arn);
  return match ? { accountId: match[1], channel: match[2] } : null;
}
