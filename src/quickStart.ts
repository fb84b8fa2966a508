/**
 * The embedded mode's quick start: on the first start, a local account with a
 * relay token (for producers and consumers) and an owner token (for the
 * dashboard), saved under the data dir (mode 0600) and printed once with a
 * one-line dashboard sign-in link. Later starts keep the account and print
 * where the credentials are, not the credentials, unless asked
 * (`relayq serve --print-credentials`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Relay } from './relay';
import type { Config } from './config';

export const LOCAL_ACCOUNT = 'local';
/** the relay token of the local account */
export const RELAY_TOKEN_FILE = 'local-token';
/** the owner token of the local account (dashboard sign-in) */
export const OWNER_TOKEN_FILE = 'local-owner-token';

/** The dashboard URL that signs its opener in with the owner token (kept in the fragment). */
export function signInLink(base: string, ownerToken: string): string {
  return `${base}/dashboard/#owner_token=${ownerToken}`;
}

async function saveNewToken(
  relay: Relay,
  file: string,
  input: { name: string; role: 'relay' | 'owner' },
): Promise<void> {
  const issued = await relay.tokens.issue(LOCAL_ACCOUNT, input);
  fs.writeFileSync(file, `${issued.token}\n`, { mode: 0o600 });
}

export async function quickStart(
  relay: Relay,
  config: Readonly<Config>,
  port: number,
  logger: Logger,
  printCredentials: boolean,
): Promise<void> {
  const relayFile = path.join(config.dataDir, RELAY_TOKEN_FILE);
  const ownerFile = path.join(config.dataDir, OWNER_TOKEN_FILE);
  let fresh = false;
  if ((await relay.accounts.count()) === 0) {
    const plan = relay.accounts.hasPlan('paid') ? 'paid' : config.defaultPlan;
    await relay.accounts.create(LOCAL_ACCOUNT, plan);
    await saveNewToken(relay, relayFile, { name: 'quick start', role: 'relay' });
    fresh = true;
  }
  const local = await relay.accounts.find(LOCAL_ACCOUNT);
  if (!local || !fs.existsSync(relayFile)) return;
  // Data dirs from before the dashboard line get their owner token now (printed once).
  if (!fs.existsSync(ownerFile)) {
    await saveNewToken(relay, ownerFile, { name: 'quick start owner', role: 'owner' });
    fresh = true;
  }
  const base = `http://localhost:${port}`;
  const head = `\nrelayq is running on ${base} with an embedded Redis in ${config.dataDir}\n`;
  if (!fresh && !printCredentials) {
    logger.info({ relayFile, ownerFile }, 'quick-start credentials kept');
    process.stdout.write(
      `${head}Dashboard: ${base}/dashboard/ (account "${LOCAL_ACCOUNT}")\n` +
        `Its owner and relay tokens are in ${ownerFile} and ${relayFile};\n` +
        `run \`relayq serve --print-credentials\` to print them with a sign-in link.\n\n`,
    );
    return;
  }
  const relayToken = fs.readFileSync(relayFile, 'utf8').trim();
  const ownerToken = fs.readFileSync(ownerFile, 'utf8').trim();
  logger.info({ relayFile, ownerFile }, 'quick-start credentials saved');
  process.stdout.write(
    `${head}Local account "${LOCAL_ACCOUNT}". Its tokens are saved in ${config.dataDir} (mode 0600)\n` +
      `and printed only now (again with \`relayq serve --print-credentials\`).\n\n` +
      `Open the dashboard (this link signs you in as the account's owner):\n  ${signInLink(base, ownerToken)}\n\n` +
      `Relay token, for producers and consumers:\n  export RELAY_TOKEN=${relayToken}\n\n` +
      `Send a message:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{"body":{"hello":"world"}}' ${base}/v1/relay/channels/demo/messages\n` +
      `Pull it:\n  curl -s -H "Authorization: Bearer $RELAY_TOKEN" -d '{}' ${base}/v1/relay/channels/demo/messages/pull\n\n`,
  );
}
