/** send, pull, ack and tail: the message commands. */
import { Option, type Command } from 'commander';
import type { ContentType, MessageInput, PulledMessage } from '../types.js';
import { connect, withConnection, type CommonFlags } from './connection.js';
import {
  collect,
  integerFlag,
  numberFlag,
  parseMetadata,
  readInput,
  toBody,
  UsageError,
} from './input.js';
import { isoTime, Output } from './output.js';
import { untilSignal } from './signals.js';

const CONTENT_TYPES: ContentType[] = ['json', 'text', 'bytes', 'v8'];

function describe(channel: string, m: PulledMessage): string {
  const body =
    typeof m.body === 'string' && m.contentType !== 'json'
      ? m.body
      : JSON.stringify(m.body, null, 2);
  const meta =
    Object.keys(m.metadata ?? {}).length > 0 ? `  metadata ${JSON.stringify(m.metadata)}` : '';
  return `${channel}  ${m.id}  ${isoTime(m.timestampMs)}  attempt ${m.attempts}  lease ${m.leaseId}${meta}\n${body}\n`;
}

interface SendFlags extends CommonFlags {
  delay?: string;
  metadata: string[];
  contentType: ContentType;
  dedupId?: string;
  lines?: boolean;
}

async function sendCommand(channel: string, arg: string | undefined, flags: SendFlags) {
  const out = new Output(flags);
  const client = connect(flags);
  const raw = await readInput(arg);
  const template: Omit<MessageInput, 'body'> = {};
  if (flags.contentType !== 'json') template.contentType = flags.contentType;
  if (flags.delay !== undefined) template.delaySeconds = numberFlag(flags.delay, '--delay');
  const metadata = parseMetadata(flags.metadata);
  if (metadata) template.metadata = metadata;

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
      for (const id of ids) out.item({ id }, () => `sent ${id}`);
    }
    return;
  }
  const message: MessageInput = {
    ...template,
    body: toBody(raw, flags.contentType, 'the message'),
  };
  if (flags.dedupId !== undefined) message.dedupId = flags.dedupId;
  const { id } = await client.send(channel, message);
  out.result({ id }, () => `sent ${id}`);
}

interface PullFlags extends CommonFlags {
  batch: string;
  visibility?: string;
  wait?: string;
  ack?: boolean;
}

async function pullCommand(channel: string, flags: PullFlags) {
  const out = new Output(flags);
  const client = connect(flags);
  const result = await client.pull(channel, {
    batchSize: integerFlag(flags.batch, '--batch', 1),
    visibilityTimeoutMs:
      flags.visibility === undefined ? undefined : integerFlag(flags.visibility, '--visibility', 1),
    waitMs: flags.wait === undefined ? undefined : integerFlag(flags.wait, '--wait', 0),
  });
  let ackedCount: number | undefined;
  if (flags.ack && result.messages.length > 0) {
    ({ ackedCount } = await client.ack(
      channel,
      result.messages.map((m) => m.leaseId),
    ));
  }
  out.result({ channel, ...result, ...(flags.ack ? { ackedCount: ackedCount ?? 0 } : {}) }, () => {
    if (result.messages.length === 0) {
      return `no messages available in ${channel} (backlog ${result.messageBacklogCount})`;
    }
    const shown = result.messages.map((m) => describe(channel, m)).join('\n');
    return flags.ack ? `${shown}\nacked ${ackedCount} of ${result.messages.length}` : shown;
  });
}

async function ackCommand(channel: string, leaseIds: string[], flags: CommonFlags) {
  const out = new Output(flags);
  const client = connect(flags);
  let acked = 0;
  for (let i = 0; i < leaseIds.length; i += 100) {
    acked += (await client.ack(channel, leaseIds.slice(i, i + 100))).ackedCount;
  }
  out.result({ ackedCount: acked }, () => `acked ${acked} of ${leaseIds.length}`);
}

interface TailFlags extends CommonFlags {
  ack?: boolean;
  visibility: string;
  concurrency: string;
}

/** Thrown by tail's handler without --ack: the message is left to come back. */
class LeaveIt extends Error {}

async function tailCommand(channels: string[], flags: TailFlags) {
  const out = new Output(flags);
  const client = connect(flags);
  const visibility = integerFlag(flags.visibility, '--visibility', 1000);
  const seen = new Set<string>();
  const consumer = client.consume(
    channels,
    (message, { channel }) => {
      if (!seen.has(message.id))
        out.item({ channel, ...message }, () => describe(channel, message));
      if (!flags.ack) {
        seen.add(message.id);
        throw new LeaveIt();
      }
    },
    {
      visibilityTimeoutMs: visibility,
      concurrency: integerFlag(flags.concurrency, '--concurrency', 1),
      batchSize: 100,
    },
  );
  consumer.on('connected', () =>
    out.note(`tailing ${channels.join(', ')}${flags.ack ? ' (acking)' : ''}`),
  );
  let stopping = false;
  consumer.on('disconnected', () => {
    if (!stopping) out.note('disconnected; reconnecting');
  });
  consumer.on('error', (err: Error) => {
    if (err instanceof LeaveIt) return;
    process.stderr.write(`${flags.program}: ${err.message}\n`);
  });
  await untilSignal(
    () => consumer.stop(),
    () => (stopping = true),
  );
}

export function registerMessageCommands(program: Command): void {
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
  ).action(sendCommand);

  withConnection(
    program
      .command('pull')
      .description('lease messages from a channel and print them')
      .argument('<channel>', 'channel id')
      .option('--batch <n>', 'most messages to pull (1 to 100)', '10')
      .option('--visibility <ms>', 'lease length in ms (default 30000)')
      .option('--wait <ms>', 'wait up to this long for a message (0 to 20000)')
      .option('--ack', 'acknowledge (delete) the printed messages'),
  ).action(pullCommand);

  withConnection(
    program
      .command('ack')
      .description('acknowledge (delete) messages by their lease ids')
      .argument('<channel>', 'channel id')
      .argument('<leaseId...>', 'lease ids from a pull'),
  ).action(ackCommand);

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
  ).action(tailCommand);
}
