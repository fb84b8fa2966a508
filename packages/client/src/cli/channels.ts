/** relayq channels list | show | configure | purge | delete | redrive. */
import type { Command } from 'commander';
import type { ChannelConfig, ChannelDetails } from '../types.js';
import { connect, flagsOf, withConnection, type CommonFlags } from './connection.js';
import { collect, integerFlag, jsonFlag, UsageError } from './input.js';
import { isoTime, Output, table } from './output.js';

/** Redrive moves this many per call, so a long redrive can show its progress. */
const REDRIVE_STEP = 1_000;

async function listCommand(...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const out = new Output(flags);
  const list = await connect(flags).channels();
  out.result(list, () =>
    list.channels.length === 0
      ? 'no channels'
      : table([
          ['CHANNEL', 'QUEUED', 'DELAYED', 'IN FLIGHT', 'BYTES', 'OLDEST'],
          ...list.channels.map((c) => [
            c.id,
            String(c.queued),
            String(c.delayed),
            String(c.inFlight),
            String(c.storageBytes),
            isoTime(c.oldestMessageMs),
          ]),
        ]),
  );
}

function describeChannel(c: ChannelDetails): string {
  const rows = [
    ['queued', String(c.queued)],
    ['delayed', String(c.delayed)],
    ['in flight', String(c.inFlight)],
    ['bytes', String(c.storageBytes)],
    ['oldest message', isoTime(c.oldestMessageMs)],
    ...Object.entries(c.config ?? {}).map(([k, v]) => [k, v === null ? '-' : String(v)]),
  ];
  return `${c.id}\n${rows.map(([k, v]) => `  ${k.padEnd(22)}${v}`).join('\n')}`;
}

async function showCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const details = await connect(flags).channel(channel);
  new Output(flags).result(details, () => describeChannel(details));
}

interface ConfigureFlags extends CommonFlags {
  deadLetter?: string | false;
  maxAttempts?: string;
  dedupWindow?: string;
  set: string[];
}

async function configureCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<ConfigureFlags>(args);
  const config: ChannelConfig = {};
  if (flags.deadLetter !== undefined) config.deadLetterChannel = flags.deadLetter || null;
  if (flags.maxAttempts !== undefined)
    config.maxAttempts = integerFlag(flags.maxAttempts, '--max-attempts', 1);
  if (flags.dedupWindow !== undefined)
    config.dedupWindowSeconds = integerFlag(flags.dedupWindow, '--dedup-window', 1);
  // any other setting the relay knows, by its camelCase or wire name: --set paused=true
  for (const pair of flags.set) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set takes name=value, not "${pair}"`);
    config[pair.slice(0, eq)] = jsonFlag(pair.slice(eq + 1), `--set ${pair.slice(0, eq)}`);
  }
  if (Object.keys(config).length === 0) {
    throw new UsageError(
      'nothing to change: pass --dead-letter, --no-dead-letter, --max-attempts, --dedup-window or --set',
    );
  }
  const details = await connect(flags).configureChannel(channel, config);
  new Output(flags).result(details, () => describeChannel(details));
}

async function purgeCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const out = new Output(flags);
  out.progress(`purging ${channel}...`);
  const result = await connect(flags).purge(channel);
  out.progress(`purged ${channel}`, true);
  out.result(result, () => `purged ${result.purgedCount} messages from ${channel}`);
}

async function deleteCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const result = await connect(flags).deleteChannel(channel);
  new Output(flags).result(result, () => `deleted ${channel} (${result.deletedCount} messages)`);
}

interface RedriveFlags extends CommonFlags {
  to?: string;
  max: string;
}

async function redriveCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<RedriveFlags>(args);
  const out = new Output(flags);
  const client = connect(flags);
  const max = integerFlag(flags.max, '--max', 1);
  let moved = 0;
  // in steps, so that a long redrive shows its progress and a failure loses no count
  while (moved < max) {
    const step = Math.min(REDRIVE_STEP, max - moved);
    const { movedCount } = await client.redrive(channel, { to: flags.to, max: step });
    moved += movedCount;
    out.progress(`redriven ${moved} of at most ${max}`);
    if (movedCount < step) break;
  }
  out.progress(`redriven ${moved}`, true);
  out.result(
    { movedCount: moved },
    () => `moved ${moved} dead letters of ${channel} to ${flags.to ?? channel}`,
  );
}

export function registerChannelCommands(program: Command): void {
  const channels = program
    .command('channels')
    .description('list, inspect, configure, purge, delete and redrive channels');
  withConnection(
    channels
      .command('list', { isDefault: true })
      .description('list the channels this token can see, with their counts'),
  ).action(listCommand);
  withConnection(
    channels
      .command('show')
      .description("show a channel's counts and settings")
      .argument('<channel>', 'channel id'),
  ).action(showCommand);
  withConnection(
    channels
      .command('configure')
      .description("change a channel's settings (those not given keep their value)")
      .argument('<channel>', 'channel id')
      .option('--dead-letter <channel>', 'move messages here after --max-attempts deliveries')
      .option('--no-dead-letter', 'turn dead-lettering off')
      .option('--max-attempts <n>', 'deliveries before a message is dead-lettered (1 to 100)')
      .option('--dedup-window <seconds>', 'how long a dedup id is remembered (1 to 86400)')
      .option(
        '--set <name=json>',
        'any other setting, its value as JSON (repeatable)',
        collect,
        [] as string[],
      ),
  ).action(configureCommand);
  withConnection(
    channels
      .command('purge')
      .description('delete every message of a channel (its settings stay)')
      .argument('<channel>', 'channel id'),
  ).action(purgeCommand);
  withConnection(
    channels
      .command('delete')
      .description('delete a channel: its messages and its settings')
      .argument('<channel>', 'channel id'),
  ).action(deleteCommand);
  withConnection(
    channels
      .command('redrive')
      .description("move a channel's dead letters back (or --to another channel)")
      .argument('<channel>', 'the channel whose dead letters to move')
      .option('--to <channel>', 'move them here instead of back to their channel')
      .option('--max <n>', 'most messages to move', '100000'),
  ).action(redriveCommand);
}
