/**
 * `forward <channel> --to <url>`: replays each message of a channel as the
 * HTTP request it describes to a local (or any) URL, with the SDK's forward():
 * catch-up of what arrived while it was not running, then live. One line per
 * delivery on stdout (--json: one JSON object per line). SIGINT or SIGTERM
 * finishes the deliveries in flight, then exits 0.
 */
import type { Command } from 'commander';
import { forward, DeliveryFailed, type DeliveryReport } from '../forward.js';
import { connect, withConnection, type CommonFlags } from './connection.js';
import { integerFlag, numberFlag, UsageError } from './input.js';
import { Output } from './output.js';
import { untilSignal } from './signals.js';

interface ForwardFlags extends CommonFlags {
  to: string;
  timeout: string;
  concurrency: string;
  retryDelay?: string;
  retrySchedule?: string;
}

function describe(r: DeliveryReport): string {
  const result = r.status !== null ? String(r.status) : (r.error ?? 'failed');
  const retry =
    r.outcome === 'retry'
      ? `  retry in ${r.retryInSeconds} s`
      : r.outcome === 'handed_back'
        ? '  handed back to the channel (its max_attempts and dead-letter channel apply)'
        : '';
  return `${r.time}  ${r.method} ${r.url}  ${result}  ${r.ms} ms  ${r.messageId}  attempt ${r.attempts}${retry}`;
}

async function forwardCommand(channel: string, flags: ForwardFlags): Promise<void> {
  if (!/^https?:\/\/[^/]/i.test(flags.to)) {
    throw new UsageError(`--to must be an http:// or https:// URL, not "${flags.to}"`);
  }
  const timeoutSeconds = numberFlag(flags.timeout, '--timeout');
  if (timeoutSeconds <= 0) throw new UsageError('--timeout must be more than 0 seconds');
  let retryDelay: number | undefined;
  if (flags.retryDelay !== undefined) {
    retryDelay = numberFlag(flags.retryDelay, '--retry-delay');
    if (retryDelay < 0) throw new UsageError('--retry-delay must be 0 or more seconds');
  }
  let retrySchedule: number[] | undefined;
  if (flags.retrySchedule !== undefined) {
    retrySchedule = flags.retrySchedule.split(',').map((s) => Number(s.trim()));
    if (retrySchedule.some((s) => !Number.isFinite(s) || s < 0) || retrySchedule.length > 100)
      throw new UsageError(
        `--retry-schedule must be seconds separated by commas, e.g. 0,5,300, not "${flags.retrySchedule}"`,
      );
  }
  const concurrency = integerFlag(flags.concurrency, '--concurrency', 1);
  const out = new Output(flags);
  const client = connect(flags);
  const consumer = forward(client, channel, flags.to, {
    timeoutMs: Math.round(timeoutSeconds * 1000),
    concurrency,
    retryDelaySeconds: retryDelay,
    retrySchedule,
    onDelivery: (report) => out.item(report, () => describe(report)),
  });
  let stopping = false;
  consumer.on('connected', () => out.note(`forwarding ${channel} to ${flags.to} (Ctrl-C to stop)`));
  consumer.on('disconnected', () => {
    if (!stopping) out.note('disconnected from the relay; reconnecting');
  });
  consumer.on('error', (err: Error) => {
    if (err instanceof DeliveryFailed) return; // already printed as a delivery line
    process.stderr.write(`${flags.program}: ${err.message}\n`);
  });
  await untilSignal(
    () => consumer.stop(),
    () => {
      stopping = true;
      out.note('finishing the deliveries in flight');
    },
  );
}

export function registerForwardCommand(program: Command): void {
  withConnection(
    program
      .command('forward')
      .description(
        'replay the messages of a channel (webhook deliveries included) as HTTP requests to a URL',
      )
      .argument('<channel>', 'channel id')
      .requiredOption(
        '--to <url>',
        'where to send each request, e.g. http://localhost:3000/webhooks',
      )
      .option('--timeout <seconds>', 'how long to wait for the target per delivery', '30')
      .option('--concurrency <n>', 'deliveries at once (1 keeps the order)', '1')
      .option(
        '--retry-schedule <seconds,...>',
        'seconds to wait before each attempt, the first usually 0 (default 0,5,300,1800,7200,18000,36000,36000); retried while the lease is held, so the channel max_attempts is not spent',
      )
      .option(
        '--retry-delay <seconds>',
        'deprecated: a schedule of 8 attempts starting at this delay, doubled each time (up to 300 s)',
      ),
  ).action(forwardCommand);
}
