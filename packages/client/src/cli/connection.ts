/** The connection flags every client command takes, and the client they make. */
import type { Command } from 'commander';
import { RelayClient } from '../client.js';
import { resolveConnection, DEFAULT_URL, type ConnectionFlags } from './config.js';
import type { OutputFlags } from './output.js';

export type CommonFlags = ConnectionFlags & OutputFlags;

/** The name of the program the user ran (`relayq`, `relayq-client`), for hints and errors. */
export function programName(command: Command): string {
  let root = command;
  while (root.parent) root = root.parent;
  return root.name();
}

export function withConnection(command: Command): Command {
  return command
    .option('--url <url>', `relay address (default: $RELAY_URL, the profile's, or ${DEFAULT_URL})`)
    .option('--token <token>', "relay API token (default: $RELAY_TOKEN or the profile's)")
    .option(
      '--profile <name>',
      `use this profile of ${programName(command)} login (default: $RELAY_PROFILE or the current one)`,
    )
    .option('--json', 'print JSON (one document, or one object per line for streams)');
}

export function connect(flags: ConnectionFlags): RelayClient {
  const { url, token } = resolveConnection(flags);
  return new RelayClient({ url, token });
}

/** The flags of an action's command (commander passes the Command last), with the program's name. */
export function flagsOf<T>(args: unknown[]): T & { program: string } {
  const command = args[args.length - 1] as Command;
  return { ...command.opts<T & object>(), program: programName(command) };
}
