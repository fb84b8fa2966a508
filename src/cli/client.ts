/**
 * The client commands of the relayq command line: send, pull, ack, tail,
 * channels. They talk to a relay at RELAY_URL with RELAY_TOKEN (or --url and
 * --token) through the SDK only. Output is JSON lines when stdout is not a
 * terminal (or with --json), readable lines otherwise. Failures print one
 * plain sentence on stderr and exit non-zero.
 */
import { Command, Option } from 'commander';
import {
  RelayClient,
  RelayError,
  type ContentType,
  type MessageInput,
  type PulledMessage,
} from '../client';
import {
  collect,
  integerFlag,
  numberFlag,
  parseMetadata,
  readInput,
  toBody,
  UsageError,
} from './clientInput';
import { untilSignal } from './signals';

const DEFAULT_URL = 'http://localhost:8080';
const CONTENT_TYPES: ContentType[] = ['json', 'text', 'bytes', 'v8'];

export interface ConnectionFlags {
  url?: string;
  token?: string;
  json?: boolean;
}

export function withConnection(command: Command): Command {
  return command
    .option('--url <url>', `relay address (default: $RELAY_URL or ${DEFAULT_URL})`)
    .option('--token <token>', 'relay API token (default: $RELAY_TOKEN)')
    .option('--json', 'print JSON lines even on a terminal');
}

export function connect(flags: ConnectionFlags): RelayClient {
  const url = flags.url ?? process.env.RELAY_URL ?? DEFAULT_URL;
  const token = flags.token ?? process.env.RELAY_TOKEN;
  if (!token) throw new UsageError('no relay token: set RELAY_TOKEN or pass --token');
  if (!/^https?:\/\//i.test(url)) {
    throw new UsageError(`the relay address must start with http:// or https://, not "${url}"`);
  }
  return new RelayClient({ url, token });
}

export const jsonOutput = (flags: ConnectionFlags) => Boolean(flags.json) || !process.stdout.isTTY;

function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

function describe(channel: string, m: PulledMessage): string {
  const body =
    typeof m.body === 'string' && m.content_type !== 'json'
      ? m.body
      : JSON.stringify(m.body, null, 2);
  const meta =
    Object.keys(m.metadata ?? {}).length > 0 ? `  metadata ${JSON.stringify(m.metadata)}` : '';
  const when = new Date(m.timestamp_ms).toISOString();
  return `${channel}  ${m.id}  ${when}  attempt ${m.attempts}  lease ${m.lease_id}${meta}\n${body}\n`;
}

function printMessage(flags: ConnectionFlags, channel: string, m: PulledMessage): void {
  if (jsonOutput(flags)) printLine(JSON.stringify({ channel, ...m }));
  else printLine(describe(channel, m));
}

/** Runs a command's action with errors turned into one plain sentence and an exit code. */
export function run<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (err instanceof UsageError) {
        process.stderr.write(`relayq: ${err.message}\n`);
        process.exit(2);
      }
      if (err instanceof RelayError) {
        const status = err.status === 0 ? '' : ` (HTTP ${err.status})`;
        process.stderr.write(`relayq: ${err.message}${status}\n`);
        process.exit(1);
      }
      throw err;
    }
  };
}

interface SendFlags extends ConnectionFlags {
  delay?: string;
  metadata: string[];
  contentType: ContentType;
  dedupId?: string;
  lines?: boolean;
}

async function sendCommand(
  channel: string,
  arg: string | undefined,
  flags: SendFlags,
): Promise<void> {
  const client = connect(flags);
  const raw = await readInput(arg);
  const template: Omit<MessageInput, 'body'> = { content_type: flags.contentType };
  if (flags.delay !== undefined) template.delay_seconds = numberFlag(flags.delay, '--delay');
  const metadata = parseMetadata(flags.metadata);
  if (metadata) template.metadata = metadata;
  if (flags.contentType === 'json') delete template.content_type;

  if (flags.lines) {
    if (flags.dedupId !== undefined) throw new UsageError('--dedup-id cannot be used with --lines');
    const lines = raw
      .toString('utf8')
      .split('\n')
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l.trim() !== '');
    const messages = lines.map((line, i) => ({
      ...template,
      body: toBody(Buffer.from(line, 'utf8'), flags.contentType, `line ${i + 1}`),
    }));
    for (let i = 0; i < messages.length; i += 100) {
      const { ids } = await client.sendBatch(channel, messages.slice(i, i + 100));
      for (const id of ids) printLine(jsonOutput(flags) ? JSON.stringify({ id }) : `sent ${id}`);
    }
    return;
  }
  const message: MessageInput = {
    ...template,
    body: toBody(raw, flags.contentType, 'the message'),
  };
  if (flags.dedupId !== undefined) message.dedup_id = flags.dedupId;
  const { id } = await client.send(channel, message);
  printLine(jsonOutput(flags) ? JSON.stringify({ id }) : `sent ${id}`);
}

interface PullFlags extends ConnectionFlags {
  batch: string;
  visibility?: string;
  wait?: string;
  ack?: boolean;
}

async function pullCommand(channel: string, flags: PullFlags): Promise<void> {
  const client = connect(flags);
  const options: { batch_size: number; visibility_timeout_ms?: number; wait_ms?: number } = {
    batch_size: integerFlag(flags.batch, '--batch', 1),
  };
  if (flags.visibility !== undefined)
    options.visibility_timeout_ms = integerFlag(flags.visibility, '--visibility', 1);
  if (flags.wait !== undefined) options.wait_ms = integerFlag(flags.wait, '--wait', 0);
  const result = await client.pull(channel, options);
  for (const m of result.messages) printMessage(flags, channel, m);
  if (!jsonOutput(flags) && result.messages.length === 0) {
    printLine(`no messages available in ${channel} (backlog ${result.message_backlog_count})`);
  }
  if (flags.ack && result.messages.length > 0) {
    const { acked_count } = await client.ack(
      channel,
      result.messages.map((m) => m.lease_id),
    );
    if (!jsonOutput(flags)) printLine(`acked ${acked_count} of ${result.messages.length}`);
  }
}

async function ackCommand(
  channel: string,
  leaseIds: string[],
  flags: ConnectionFlags,
): Promise<void> {
  const client = connect(flags);
  let acked = 0;
  for (let i = 0; i < leaseIds.length; i += 100) {
    acked += (await client.ack(channel, leaseIds.slice(i, i + 100))).acked_count;
  }
  printLine(
    jsonOutput(flags)
      ? JSON.stringify({ acked_count: acked })
      : `acked ${acked} of ${leaseIds.length}`,
  );
}

interface TailFlags extends ConnectionFlags {
  ack?: boolean;
  visibility: string;
  concurrency: string;
}

/** Thrown by tail's handler without --ack: the message is left to come back. */
class LeaveIt extends Error {}

async function tailCommand(channels: string[], flags: TailFlags): Promise<void> {
  const client = connect(flags);
  const visibility = integerFlag(flags.visibility, '--visibility', 1000);
  const json = jsonOutput(flags);
  const seen = new Set<string>();
  const consumer = client.consume(
    channels,
    (message, { channel }) => {
      if (!seen.has(message.id)) printMessage(flags, channel, message);
      if (!flags.ack) {
        seen.add(message.id);
        throw new LeaveIt();
      }
    },
    {
      visibility_timeout_ms: visibility,
      concurrency: integerFlag(flags.concurrency, '--concurrency', 1),
      batch_size: 100,
    },
  );
  const note = (text: string) => {
    if (!json) process.stderr.write(`${text}\n`);
  };
  consumer.on('connected', () =>
    note(`tailing ${channels.join(', ')}${flags.ack ? ' (acking)' : ''}`),
  );
  let stopping = false;
  consumer.on('disconnected', () => {
    if (!stopping) note('disconnected; reconnecting');
  });
  consumer.on('error', (err: Error) => {
    if (err instanceof LeaveIt) return;
    process.stderr.write(`relayq: ${err.message}\n`);
  });
  await untilSignal(
    () => consumer.stop(),
    () => (stopping = true),
  );
}

async function channelsCommand(flags: ConnectionFlags): Promise<void> {
  const { channels } = await connect(flags).channels();
  if (jsonOutput(flags)) {
    for (const c of channels) printLine(JSON.stringify(c));
    return;
  }
  if (channels.length === 0) {
    printLine('no channels');
    return;
  }
  const rows = [
    ['CHANNEL', 'QUEUED', 'DELAYED', 'IN FLIGHT', 'BYTES', 'OLDEST'],
    ...channels.map((c) => [
      c.id,
      String(c.queued),
      String(c.delayed),
      String(c.in_flight),
      String(c.storage_bytes),
      c.oldest_message_ms === null ? '-' : new Date(c.oldest_message_ms).toISOString(),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows)
    printLine(
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}

export function registerClientCommands(program: Command): void {
  withConnection(
    program
      .command('send')
      .description('send one message to a channel (the body as JSON, @file, or stdin)')
      .argument('<channel>', 'channel id')
      .argument(
        '[body]',
        'the message body: JSON text, @file to read a file, or - (or nothing) for stdin',
      )
      .option('--delay <seconds>', 'seconds before the message can be pulled (0 to 86400)')
      .option('--metadata <key=value>', 'a metadata entry (repeatable)', collect, [] as string[])
      .addOption(
        new Option('--content-type <type>', 'how to read the body')
          .choices(CONTENT_TYPES)
          .default('json'),
      )
      .option(
        '--dedup-id <id>',
        'deduplication id: a repeat within the channel window stores nothing',
      )
      .option('--lines', 'send each line of the input as its own message (in batches of 100)'),
  ).action(run(sendCommand));

  withConnection(
    program
      .command('pull')
      .description('lease messages from a channel and print them')
      .argument('<channel>', 'channel id')
      .option('--batch <n>', 'most messages to pull (1 to 100)', '10')
      .option('--visibility <ms>', 'lease length in ms (default 30000)')
      .option('--wait <ms>', 'wait up to this long for a message (0 to 20000)')
      .option('--ack', 'acknowledge (delete) the printed messages'),
  ).action(run(pullCommand));

  withConnection(
    program
      .command('ack')
      .description('acknowledge (delete) messages by their lease ids')
      .argument('<channel>', 'channel id')
      .argument('<lease_id...>', 'lease ids from a pull'),
  ).action(run(ackCommand));

  withConnection(
    program
      .command('tail')
      .description(
        'print messages of one or more channels as they arrive (with --ack, consume them)',
      )
      .argument('<channel...>', 'channel ids')
      .option('--ack', 'acknowledge (delete) each message once printed')
      .option('--visibility <ms>', 'lease length of each look in ms', '5000')
      .option('--concurrency <n>', 'messages printed at once', '10'),
  ).action(run(tailCommand));

  withConnection(
    program
      .command('channels')
      .description('list the channels this token can see, with their counts'),
  ).action(run(channelsCommand));
}
