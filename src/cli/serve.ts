/** `relayq serve`: run the service until SIGTERM or SIGINT. */
import { ConfigError, loadConfig } from '../config';
import { DataDirInUseError } from '../embedded/lock';
import { EmbeddedRedisError } from '../embedded/redis';
import { createLogger } from '../logger';
import { runServer } from '../server';
import { printCredentials } from './credentials';

export async function serve(options: { printCredentials?: boolean } = {}): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`relayq: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let running;
  try {
    running = await runServer(config, logger, options);
  } catch (err) {
    // another relayq runs on this data dir: print its credentials if asked, touch nothing
    if (err instanceof DataDirInUseError && options.printCredentials) {
      process.exitCode = printCredentials(config, err.owner);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    logger.fatal({ err: message }, 'relayq failed to start');
    if (err instanceof EmbeddedRedisError || err instanceof DataDirInUseError) {
      process.stderr.write(`relayq: ${message}\n`);
    }
    process.exit(1);
  }
  const stop = (signal: string) => {
    logger.info({ signal }, 'signal received');
    running
      .shutdown()
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
