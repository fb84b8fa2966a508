/**
 * `relayq credentials` (and `relayq serve --print-credentials` while another
 * relayq holds the data dir): prints the embedded quick start's saved
 * credentials. Reads files only: it starts, stops and changes nothing.
 */
import type { Config } from '../config';
import { dataDirOwner, type DataDirOwner } from '../embedded/lock';
import { credentialsText, LOCAL_ACCOUNT, readLocalCredentials } from '../embedded/credentials';

/** Prints the credentials for the relayq that owns the data dir (or none); returns the exit code. */
export function printCredentials(
  config: Pick<Config, 'dataDir' | 'port'>,
  owner: DataDirOwner | null = dataDirOwner(config.dataDir),
): number {
  const credentials = readLocalCredentials(config.dataDir);
  if (!credentials) {
    process.stderr.write(
      `relayq: no quick-start credentials in ${config.dataDir}: the embedded mode (no REDIS_URL) ` +
        'makes them on its first start (npm start); RELAY_DATA_DIR names another directory\n',
    );
    return 1;
  }
  const port = owner?.port ?? config.port;
  const base = `http://localhost:${port}`;
  const head = owner
    ? `relayq (pid ${owner.pid}) is running on ${base} with its data in ${config.dataDir}.\n`
    : `No relayq is running with its data in ${config.dataDir} (start it with \`npm start\`); ` +
      `the addresses below use PORT (${port}).\n`;
  process.stdout.write(
    `${head}Credentials of the local account "${LOCAL_ACCOUNT}" (saved there, mode 0600):\n\n` +
      credentialsText(base, credentials),
  );
  return 0;
}
