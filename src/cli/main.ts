#!/usr/bin/env node
/** The relayq command line: `relayq serve`, the operator commands, and the client commands. */
import { newProgram, registerClientCommands, runProgram } from '@relayq/client/cli';
import { registerAdminCommands } from './admin';

const program = newProgram('relayq', 'relayq: a self-hostable message relay queue');

program
  .command('serve')
  .description('run the service (settings come from the environment; see docs/configuration.md)')
  .option(
    '--print-credentials',
    "embedded mode: print the local account's tokens and dashboard sign-in link again",
  )
  // loaded only when serving, so that the client and operator commands start fast
  .action(async (opts: { printCredentials?: boolean }) =>
    (await import('./serve')).serve({ printCredentials: opts.printCredentials === true }),
  );

registerAdminCommands(program);
registerClientCommands(program);

void runProgram(program);
