/** relayq history list | show, and relayq replay (docs/api/history.md). */
import type { Command } from 'commander';
import type { HistoryQuery, HistoryRecord, ReplayJob } from '../types.js';
import { connect, flagsOf, withConnection, type CommonFlags } from './connection.js';
import { integerFlag, jsonFlag, UsageError } from './input.js';
import { isoTime, Output, table } from './output.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A time flag: a duration back from now (90s, 15m, 1h, 2d), epoch ms, or ISO-8601. */
export function timeFlag(value: string, name: string, now = Date.now()): number | string {
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) return now - Number(ago[1]) * UNITS[ago[2]];
  if (/^\d+$/.test(value)) return Number(value);
  if (!Number.isNaN(Date.parse(value))) return value;
  throw new UsageError(`${name} takes a duration (15m, 1h, 2d), epoch ms or an ISO-8601 time`);
}

interface ListFlags extends CommonFlags {
  since?: string;
  until?: string;
  status?: string;
  filter?: string;
  limit: string;
  cursor?: string;
}

async function listCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<ListFlags>(args);
  const query: HistoryQuery = {
    since: flags.since === undefined ? undefined : timeFlag(flags.since, '--since'),
    until: flags.until === undefined ? undefined : timeFlag(flags.until, '--until'),
    status: flags.status as HistoryQuery['status'],
    filter:
      flags.filter === undefined
        ? undefined
        : (jsonFlag(flags.filter, '--filter') as Record<string, unknown>),
    limit: integerFlag(flags.limit, '--limit', 1),
    cursor: flags.cursor,
  };
  const page = await connect(flags).history(channel, query);
  new Output(flags).result(page, () => {
    if (page.items.length === 0) return 'no records';
    const rows = table([
      ['ID', 'RECEIVED', 'ENTRANCE', 'STATUS', 'ATTEMPTS', 'BYTES', 'GROUP', 'PREVIEW'],
      ...page.items.map((i) => [
        i.id,
        isoTime(i.receivedAt),
        i.entrance,
        i.status,
        String(i.attempts),
        String(i.size),
        i.groupId ?? '-',
        JSON.stringify(i.preview.slice(0, 60)),
      ]),
    ]);
    return page.nextCursor ? `${rows}\nmore: --cursor ${page.nextCursor}` : rows;
  });
}

function describeRecord(r: HistoryRecord): string {
  const lines = [
    `${r.id}  ${r.status}  ${r.attempts} attempts  ${r.size} bytes  via ${r.entrance}`,
    `received ${isoTime(r.receivedAt)}  content type ${r.contentType}`,
  ];
  if (r.groupId) lines.push(`group ${r.groupId}`);
  if (r.webhook) {
    const verdict =
      r.webhook.verified === null
        ? 'not checked'
        : r.webhook.verified
          ? 'verified'
          : 'NOT verified';
    lines.push(`webhook ${r.webhook.method} ?${r.webhook.query}  signature ${verdict}`);
    for (const [name, value] of Object.entries(r.webhook.headers))
      lines.push(`  ${name}: ${value}`);
  }
  lines.push('timeline:');
  for (const t of r.timeline) {
    const { type, at, ...rest } = t;
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ');
    lines.push(`  ${isoTime(at)}  ${type}${extra ? `  ${extra}` : ''}`);
  }
  lines.push('body:', typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2));
  return lines.join('\n');
}

async function showCommand(channel: string, id: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const record = await connect(flags).historyRecord(channel, id);
  new Output(flags).result(record, () => describeRecord(record));
}

interface ReplayFlags extends CommonFlags {
  since?: string;
  until?: string;
  status?: string;
  filter?: string;
  to?: string;
  rate: string;
  dryRun?: boolean;
  id?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ENDED = new Set(['done', 'cancelled', 'failed', 'planned']);

async function replayCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<ReplayFlags>(args);
  const out = new Output(flags);
  const client = connect(flags);
  if (flags.id) {
    const replayed = await client.replayMessage(channel, flags.id, flags.to);
    out.result(replayed, () => `replayed ${flags.id} as ${replayed.id}`);
    return;
  }
  if (flags.since === undefined) throw new UsageError('replay needs --since (or --id)');
  let job: ReplayJob = await client.createReplay(channel, {
    since: timeFlag(flags.since, '--since'),
    until: flags.until === undefined ? undefined : timeFlag(flags.until, '--until'),
    status: flags.status as HistoryQuery['status'],
    filter:
      flags.filter === undefined
        ? undefined
        : (jsonFlag(flags.filter, '--filter') as Record<string, unknown>),
    to: flags.to,
    ratePerSecond: integerFlag(flags.rate, '--rate', 1),
    dryRun: flags.dryRun === true,
  });
  while (!ENDED.has(job.state)) {
    out.progress(`${job.state}: replayed ${job.replayed} of ${job.matched}`);
    await sleep(500);
    job = await client.replayJob(channel, job.id);
  }
  out.progress(`${job.state}: replayed ${job.replayed} of ${job.matched}`, true);
  out.result(job, () =>
    job.state === 'planned'
      ? `would replay ${job.matched} messages of ${channel} to ${job.to}`
      : `${job.state}: replayed ${job.replayed} of ${job.matched} messages of ${channel} to ${job.to}`,
  );
}

export function registerHistoryCommands(program: Command): void {
  const history = program
    .command('history')
    .description("search a channel's message history and show one record");
  withConnection(
    history
      .command('list', { isDefault: true })
      .description('the records of a channel, newest first')
      .argument('<channel>', 'channel id')
      .option('--since <time>', 'from: a duration back (1h), epoch ms or ISO-8601')
      .option('--until <time>', 'up to (default now)')
      .option('--status <status>', 'pending, in_flight, acked, dead, expired or purged')
      .option('--filter <json>', 'a JSON filter (docs/api/filters.md)')
      .option('--limit <n>', 'records per page (1 to 100)', '50')
      .option('--cursor <cursor>', 'the next page'),
  ).action(listCommand);
  withConnection(
    history
      .command('show')
      .description('one record: headers, verdict, timeline and body')
      .argument('<channel>', 'channel id')
      .argument('<id>', 'message id'),
  ).action(showCommand);
  withConnection(
    program
      .command('replay')
      .description('replay messages of the history (one with --id, or all --since matches)')
      .argument('<channel>', 'the channel whose history to replay')
      .option('--id <messageId>', 'replay this one message')
      .option('--since <time>', 'from: a duration back (1h), epoch ms or ISO-8601')
      .option('--until <time>', 'up to (default now)')
      .option('--status <status>', 'only these: pending, in_flight, acked, dead, expired, purged')
      .option('--filter <json>', 'a JSON filter (docs/api/filters.md)')
      .option('--to <channel>', 'store the copies here (default: the same channel)')
      .option('--rate <n>', 'copies per second (1 to 10000)', '100')
      .option('--dry-run', 'only count what would be replayed'),
  ).action(replayCommand);
}
