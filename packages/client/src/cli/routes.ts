/** relayq routes set | get | delete | test: a channel's routes (docs/api/routes.md). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { RouteTestMessage, Routes } from '../types.js';
import { connect, flagsOf, withConnection, type CommonFlags } from './connection.js';
import { UsageError } from './input.js';
import { Output } from './output.js';

interface FileFlags extends CommonFlags {
  file?: string;
}

interface TestFlags extends FileFlags {
  message?: string;
  from?: string;
}

/** The JSON of --file (required). */
function jsonFile(file: string | undefined, what: string): unknown {
  if (file === undefined) throw new UsageError(`--file <${what}.json> is required`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
  }
}

function describe(channel: string, r: Routes): string {
  if (r.routes.length === 0 && r.unmatched === 'drop' && !r.keep) return `${channel} has no routes`;
  const lines = r.routes.map(
    (route, i) =>
      `  [${i}] -> ${route.to}${route.filter ? `  ${JSON.stringify(route.filter)}` : '  (every message)'}`,
  );
  return [
    `${channel}: ${r.routes.length} route${r.routes.length === 1 ? '' : 's'}`,
    ...lines,
    `  keep: ${r.keep ? 'yes' : 'no'}`,
    `  unmatched: ${r.unmatched ?? 'drop'}`,
  ].join('\n');
}

async function setCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<FileFlags>(args);
  const routes = jsonFile(flags.file, 'routes') as Routes;
  const stored = await connect(flags).setRoutes(channel, routes);
  new Output(flags).result(stored, () => describe(channel, stored));
}

async function getCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const routes = await connect(flags).routes(channel);
  new Output(flags).result(routes, () => describe(channel, routes));
}

async function deleteCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const result = await connect(flags).deleteRoutes(channel);
  new Output(flags).result(result, () =>
    result.deleted ? `removed the routes of ${channel}` : `${channel} had no routes`,
  );
}

/** The message of --file, as the API shows a message. */
function fileMessage(file: string | undefined): RouteTestMessage {
  const value = jsonFile(file, 'message');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${file} must hold a message object ({"body": ..., "metadata": ...})`);
  }
  const m = value as Record<string, unknown>;
  return {
    body: m.body,
    content_type: (m.content_type ?? m.contentType) as RouteTestMessage['content_type'],
    metadata: m.metadata as Record<string, unknown> | undefined,
  };
}

async function testCommand(channel: string, ...args: unknown[]) {
  const flags = flagsOf<TestFlags>(args);
  if ((flags.file === undefined) === (flags.message === undefined)) {
    throw new UsageError('give the message to test: --message <id> or --file <message.json>');
  }
  const client = connect(flags);
  let message: RouteTestMessage;
  if (flags.message !== undefined) {
    // a stored message, from the history of the channel it is in (docs/api/history.md)
    const record = await client.historyRecord(flags.from ?? channel, flags.message);
    const metadata = { ...record.metadata };
    // a webhook message's headers and query, as filters see them
    if (record.webhook && metadata.webhook === undefined) metadata.webhook = record.webhook;
    message = {
      body: record.body,
      content_type: record.contentType as RouteTestMessage['content_type'],
      metadata,
    };
  } else {
    message = fileMessage(flags.file);
  }
  const [result, routes] = await Promise.all([
    client.testRoutes(channel, message),
    client.routes(channel),
  ]);
  new Output(flags).result(result, () => {
    const lines = routes.routes.map(
      (r, i) => `  [${i}] -> ${r.to}: ${result.matched.includes(i) ? 'matches' : 'no match'}`,
    );
    const copies = result.channels.length === 0 ? 'no copy (dropped)' : result.channels.join(', ');
    return [...lines, `copies: ${copies}`].join('\n');
  });
}

export function registerRoutesCommands(program: Command): void {
  const routes = program
    .command('routes')
    .description("set, show, remove and test a channel's routes (fan-out by filters)");
  withConnection(
    routes
      .command('set')
      .description("replace a channel's routes with those of a JSON file")
      .argument('<channel>', 'channel id')
      .option(
        '--file <routes.json>',
        '{"routes": [{"to": ..., "filter": ...}], "keep": ..., "unmatched": ...}',
      ),
  ).action(setCommand);
  withConnection(
    routes
      .command('get')
      .description("show a channel's routes")
      .argument('<channel>', 'channel id'),
  ).action(getCommand);
  withConnection(
    routes
      .command('delete')
      .description("remove a channel's routes")
      .argument('<channel>', 'channel id'),
  ).action(deleteCommand);
  withConnection(
    routes
      .command('test')
      .description('print which routes a message matches and where its copies would go')
      .argument('<channel>', 'channel id')
      .option(
        '--file <message.json>',
        'a message as the API shows it (body, content_type, metadata)',
      )
      .option(
        '--message <id>',
        "a stored message, read from the channel's history (history_seconds must be on)",
      )
      .option('--from <channel>', 'the channel whose history holds --message (default: <channel>)'),
  ).action(testCommand);
}
