/**
 * The embedded mode's quick start: on the first start, a local account with a
 * relay token (for producers and consumers), an owner token (for the
 * dashboard) and an AWS key pair (for the SQS endpoint), saved under the data
 * dir (mode 0600) and printed once with a one-line dashboard sign-in link.
 * Later starts keep the account and print where the credentials are, not the
 * credentials, unless asked (`relayq serve --print-credentials`); `relayq
 * credentials` prints them at any time without starting anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { RelayApp } from '../app';
import {
  credentialsText,
  LOCAL_ACCOUNT,
  OWNER_TOKEN_FILE,
  readLocalCredentials,
  RELAY_TOKEN_FILE,
} from './credentials';
import { sqsQuickStart } from './sqsQuickStart';

export { LOCAL_ACCOUNT, OWNER_TOKEN_FILE, RELAY_TOKEN_FILE, signInLink } from './credentials';

/** How the banner and the docs write the command that prints the credentials again. */
export const CREDENTIALS_COMMAND = 'npx relayq credentials';

async function saveNewToken(
  relay: RelayApp,
  file: string,
  input: { name: string; role: 'relay' | 'owner' },
): Promise<void> {
  const issued = await relay.relay.tokens.issue(LOCAL_ACCOUNT, input);
  fs.writeFileSync(file, `${issued.token}\n`, { mode: 0o600 });
}

/** Makes what is missing of the local account and its credentials; true when something was made now. */
async function makeLocalAccount(relay: RelayApp): Promise<boolean> {
  const { config } = relay.deps;
  const relayFile = path.join(config.dataDir, RELAY_TOKEN_FILE);
  const ownerFile = path.join(config.dataDir, OWNER_TOKEN_FILE);
  let fresh = false;
  if ((await relay.relay.accounts.count()) === 0) {
    const plan = relay.plans.has('paid') ? 'paid' : config.defaultPlan;
    await relay.relay.accounts.create(LOCAL_ACCOUNT, plan);
    await saveNewToken(relay, relayFile, { name: 'quick start', role: 'relay' });
    fresh = true;
  }
  const local = await relay.relay.accounts.find(LOCAL_ACCOUNT);
  if (!local || !fs.existsSync(relayFile)) return false;
  // Data dirs from before the dashboard line get their owner token now (printed once).
  if (!fs.existsSync(ownerFile)) {
    await saveNewToken(relay, ownerFile, { name: 'quick start owner', role: 'owner' });
    fresh = true;
  }
  return (await sqsQuickStart(relay, config)) || fresh;
}

export async function quickStart(
  relay: RelayApp,
  port: number,
  logger: Logger,
  printCredentials: boolean,
): Promise<void> {
  const { dataDir } = relay.deps.config;
  const fresh = await makeLocalAccount(relay);
  const credentials = readLocalCredentials(dataDir);
  if (!credentials) return;
  const base = `http://localhost:${port}`;
  const head = `\nrelayq is running on ${base} with an embedded Redis in ${dataDir}\n`;
  if (!fresh && !printCredentials) {
    logger.info({ dataDir }, 'quick-start credentials kept');
    process.stdout.write(
      `${head}Dashboard: ${base}/dashboard/ (account "${LOCAL_ACCOUNT}")\n` +
        `Its credentials (dashboard sign-in link, relay token, AWS keys) are saved in ${dataDir};\n` +
        `run \`${CREDENTIALS_COMMAND}\` (in another terminal) to print them.\n\n`,
    );
    return;
  }
  logger.info({ dataDir }, 'quick-start credentials saved');
  process.stdout.write(
    `${head}Local account "${LOCAL_ACCOUNT}". Its credentials are saved in ${dataDir} (mode 0600)\n` +
      `and printed only now (again with \`${CREDENTIALS_COMMAND}\`).\n\n` +
      credentialsText(base, credentials),
  );
}
