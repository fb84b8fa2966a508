/**
 * relayq destinations create | list | show | pause | resume | enable | delete | attempts |
 * redrive: a channel's push destination (docs/api/destinations.md).
 */
import type { Command } from 'commander';
import type { Destination, DestinationSettings } from '../types.js';
import { connect, flagsOf, withConnection, type CommonFlags } from './connection.js';
import { integerFlag, UsageError } from './input.js';
import { isoTime, Output, table } from './output.js';

interface CreateFlags extends CommonFlags {
  to: string;
  header: string[];
  timeout?: string;
  signing?: string;
  retrySchedule?: string;
  maxAttempts?: string;
  rate?: string;
  parallelism?: string;
  paused?: boolean;
}

function describe(d: Destination): string {
  const rows: [string, string][] = [
    ['url', d.url],
    ['state', d.state],
    ['signing', d.signing],
    ['parallelism', String(d.parallelism)],
    ['rate limit', d.rateLimit ? `${d.rateLimit.count} per ${d.rateLimit.periodSeconds} s` : '-'],
    ['retry schedule (s)', d.retry.scheduleSeconds.join(',')],
    ['max attempts', String(d.retry.maxAttempts)],
    ['timeout (ms)', String(d.timeoutMs)],
  ];
  if (d.lastSuccessAt !== undefined) rows.push(['last success', isoTime(d.lastSuccessAt ?? null)]);
  if (d.lastFailureAt !== undefined)
    rows.push(['last failure', `${isoTime(d.lastFailureAt ?? null)} ${d.lastFailure ?? ''}`]);
  if (d.consecutiveFailures !== undefined)
    rows.push(['consecutive failures', String(d.consecutiveFailures)]);
  if (d.disabledReason) rows.push(['disabled', d.disabledReason]);
  if (d.deadCount !== undefined) rows.push(['dead', String(d.deadCount)]);
  if (d.secret) rows.push(['secret (shown once)', d.secret]);
  return `${d.id}\n${rows.map(([k, v]) => `  ${k.padEnd(22)}${v}`).join('\n')}`;
}

function headerPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const colon = pair.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header takes "Name: value", not "${pair}"`);
    out[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
  }
  return out;
}

async function createCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CreateFlags>(args);
  const settings: DestinationSettings = { url: flags.to };
  if (flags.header.length > 0) settings.headers = headerPairs(flags.header);
  if (flags.timeout !== undefined)
    settings.timeoutMs = integerFlag(flags.timeout, '--timeout', 1) * 1000;
  if (flags.signing !== undefined) {
    if (flags.signing !== 'standard-webhooks' && flags.signing !== 'none')
      throw new UsageError('--signing must be standard-webhooks or none');
    settings.signing = flags.signing;
  }
  if (flags.retrySchedule !== undefined || flags.maxAttempts !== undefined) {
    settings.retry = {};
    if (flags.retrySchedule !== undefined)
      settings.retry.scheduleSeconds = flags.retrySchedule.split(',').map((s) => Number(s.trim()));
    if (flags.maxAttempts !== undefined)
      settings.retry.maxAttempts = integerFlag(flags.maxAttempts, '--max-attempts', 1);
  }
  if (flags.rate !== undefined) {
    const m = /^(\d+)\/(\d+)?s$/.exec(flags.rate.trim());
    if (!m)
      throw new UsageError(`--rate takes <count>/<seconds>s, e.g. 50/1s, not "${flags.rate}"`);
    settings.rateLimit = { count: Number(m[1]), periodSeconds: Number(m[2] ?? 1) };
  }
  if (flags.parallelism !== undefined)
    settings.parallelism = integerFlag(flags.parallelism, '--parallelism', 1);
  if (flags.paused) settings.paused = true;
  const d = await connect(flags).createDestination(channel, settings);
  new Output(flags).result(d, () => describe(d));
}

/** The channel's destination (there is at most one). */
async function only(flags: CommonFlags, channel: string): Promise<Destination> {
  const { destinations } = await connect(flags).destinations(channel);
  if (destinations.length === 0) throw new UsageError(`channel ${channel} has no destination`);
  return destinations[0];
}

async function listCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const list = await connect(flags).destinations(channel);
  new Output(flags).result(list, () =>
    list.destinations.length === 0
      ? 'no destination'
      : table([
          ['ID', 'STATE', 'URL', 'PARALLELISM'],
          ...list.destinations.map((d) => [d.id, d.state, d.url, String(d.parallelism)]),
        ]),
  );
}

async function showCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const d = await connect(flags).destination(channel, (await only(flags, channel)).id);
  new Output(flags).result(d, () => describe(d));
}

function change(patch: { paused?: boolean; state?: 'active' }) {
  return async (channel: string, ...args: unknown[]) => {
    const flags = flagsOf<CommonFlags>(args);
    const d = await connect(flags).updateDestination(
      channel,
      (await only(flags, channel)).id,
      patch,
    );
    new Output(flags).result(d, () => describe(d));
  };
}

async function deleteCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const id = (await only(flags, channel)).id;
  const result = await connect(flags).deleteDestination(channel, id);
  new Output(flags).result(result, () => `deleted destination ${id} of ${channel}`);
}

interface RedriveFlags extends CommonFlags {
  max?: string;
}

/** The channel's dead messages (its destination gave up on them) back, with fresh attempts. */
async function redriveCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<RedriveFlags>(args);
  const options = flags.max === undefined ? {} : { max: integerFlag(flags.max, '--max', 1) };
  const result = await connect(flags).redriveDead(channel, options);
  new Output(flags).result(
    result,
    () => `${result.movedCount} dead message(s) of ${channel} available again`,
  );
}

interface AttemptsFlags extends CommonFlags {
  limit: string;
}

async function attemptsCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<AttemptsFlags>(args);
  const id = (await only(flags, channel)).id;
  const page = await connect(flags).destinationAttempts(channel, id, {
    limit: integerFlag(flags.limit, '--limit', 1),
  });
  new Output(flags).result(page, () =>
    page.attempts.length === 0
      ? 'no attempts'
      : table([
          ['STARTED', 'MESSAGE', 'ATTEMPT', 'STATUS', 'MS', 'ERROR'],
          ...page.attempts.map((a) => [
            isoTime(a.startedAt),
            a.messageId,
            String(a.attempt),
            a.status === null ? '-' : String(a.status),
            String(a.durationMs),
            a.error ?? '',
          ]),
        ]),
  );
}

export function registerDestinationCommands(program: Command): void {
  const destinations = program
    .command('destinations')
    .description("a channel's push destination: relayq delivers its messages to a URL");
  withConnection(
    destinations
      .command('create')
      .description('create the push destination of a channel (its secret is shown once)')
      .argument('<channel>', 'channel id')
      .requiredOption(
        '--to <url>',
        'where to send each message (http:// or https://); --url is the relay address, as for every command',
      )
      .option(
        '--header <name: value>',
        'a header added to every request (repeatable)',
        (v: string, acc: string[]) => [...acc, v],
        [] as string[],
      )
      .option('--timeout <seconds>', 'per request (default 30)')
      .option('--signing <scheme>', 'standard-webhooks (default) or none')
      .option(
        '--retry-schedule <seconds,...>',
        'wait before each attempt (default 0,5,300,1800,7200,18000,36000,36000)',
      )
      .option('--max-attempts <n>', 'default: the schedule length')
      .option('--rate <count/seconds>', 'at most count requests per period, e.g. 50/1s')
      .option('--parallelism <n>', 'requests in flight at most (default 1: in order)')
      .option('--paused', 'create it paused'),
  ).action(createCommand);
  withConnection(
    destinations
      .command('list')
      .description("list a channel's destination")
      .argument('<channel>', 'channel id'),
  ).action(listCommand);
  withConnection(
    destinations
      .command('show')
      .description('show the destination with its delivery state')
      .argument('<channel>', 'channel id'),
  ).action(showCommand);
  withConnection(
    destinations
      .command('pause')
      .description('pause deliveries (messages wait)')
      .argument('<channel>', 'channel id'),
  ).action(change({ paused: true }));
  withConnection(
    destinations
      .command('resume')
      .description('resume deliveries')
      .argument('<channel>', 'channel id'),
  ).action(change({ paused: false }));
  withConnection(
    destinations
      .command('enable')
      .description('re-enable a disabled destination')
      .argument('<channel>', 'channel id'),
  ).action(change({ state: 'active' }));
  withConnection(
    destinations
      .command('delete')
      .description('delete the destination')
      .argument('<channel>', 'channel id'),
  ).action(deleteCommand);
  withConnection(
    destinations
      .command('attempts')
      .description('the latest delivery attempts, newest first')
      .argument('<channel>', 'channel id')
      .option('--limit <n>', 'how many (1 to 100)', '20'),
  ).action(attemptsCommand);
  withConnection(
    destinations
      .command('redrive')
      .description(
        "make the channel's dead messages (the destination gave up on them) available again",
      )
      .argument('<channel>', 'channel id')
      .option('--max <n>', 'most messages (1 to 10000, default 1000)'),
  ).action(redriveCommand);
}
