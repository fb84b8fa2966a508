#!/usr/bin/env node
/** The relayq command line: `relayq serve`, and the operator and client commands. */
import { Command } from 'commander';
import { registerAdminCommands } from './admin';
import { registerClientCommands } from './client';
import { registerForwardCommand } from './forward';

const program = new Command();
program
  .name('relayq')
  .description('relayq: a self-hostable message relay queue')
  .showHelpAfterError();

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
registerForwardCommand(program);

program.parseAsync(process.argv).catch((err) => {
  process.stderr.write(`relayq: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
