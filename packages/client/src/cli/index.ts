/**
 * The client commands of the relayq command line, as a registry: the
 * package's own bin and the server package's `relayq` both add these to their
 * program. A new client command is one more entry here.
 */
import type { Command } from 'commander';
import { registerAccountCommands } from './account.js';
import { registerChannelCommands } from './channels.js';
import { registerDestinationCommands } from './destinations.js';
import { registerForwardCommand } from './forward.js';
import { registerHistoryCommands } from './history.js';
import { registerMessageCommands } from './messages.js';
import { registerRoutesCommands } from './routes.js';

export const CLIENT_COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerMessageCommands,
  registerChannelCommands,
  registerRoutesCommands,
  registerAccountCommands,
  registerForwardCommand,
  registerHistoryCommands,
  registerDestinationCommands,
];

export function registerClientCommands(program: Command): void {
  for (const register of CLIENT_COMMANDS) register(program);
}

export {
  newProgram,
  reportFailure,
  runProgram,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
} from './program.js';
export { UsageError } from './input.js';
export { configFile, resolveConnection, type Connection } from './config.js';
