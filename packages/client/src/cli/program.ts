/**
 * The command line's frame: one commander program whose failures all end the
 * same way. Exit codes, for every command: 0 success; 1 an error reported by
 * the relay or the network; 2 a usage error (unknown command, bad flag, bad
 * JSON argument, no token). The error sentence goes to stderr.
 */
import { Command, CommanderError } from 'commander';
import { RelayError } from '../errors.js';
import { UsageError } from './input.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A program set up so that commander's own errors (unknown command, bad flag) exit 2. */
export function newProgram(name: string, description: string): Command {
  const program = new Command();
  program
    .name(name)
    .description(description)
    .showHelpAfterError(`(run ${name} help [command] for usage)`)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  return program;
}

/** The exit code of a failure, with its sentence written to stderr. */
export function reportFailure(err: unknown, name = 'relayq'): number {
  if (err instanceof CommanderError) {
    // help and version end with a CommanderError too; commander printed the message already
    if (err.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE;
  }
  if (err instanceof UsageError) {
    process.stderr.write(`${name}: ${err.message}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof RelayError) {
    const status = err.status === 0 ? '' : ` (HTTP ${err.status})`;
    process.stderr.write(`${name}: ${err.message}${status}\n`);
    return EXIT_FAILED;
  }
  process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
  return EXIT_FAILED;
}

/** Runs the program; sets the process's exit code (never exits while work is under way). */
export async function runProgram(program: Command, argv = process.argv): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = reportFailure(err, program.name());
  }
}
