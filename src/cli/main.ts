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
    "embedded mode: print the local account's credentials again (only prints them when a relayq already runs on the data dir)",
  )
  // loaded only when serving, so that the client and operator commands start fast
  .action(async (opts: { printCredentials?: boolean }) =>
    (await import('./serve')).serve({ printCredentials: opts.printCredentials === true }),
  );

program
  .command('credentials')
  .description(
    "embedded mode: print the local account's saved credentials (dashboard sign-in link, relay token, AWS keys); starts nothing",
  )
  .action(async () => {
    const { loadConfig, ConfigError } = await import('../config');
    try {
      const config = loadConfig();
      process.exitCode = (await import('./credentials')).printCredentials(config);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`relayq: invalid configuration: ${err.message}\n`);
      process.exitCode = 2;
    }
  });

registerAdminCommands(program);
registerClientCommands(program);

void runProgram(program);
