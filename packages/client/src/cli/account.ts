/**
 * Who the CLI is: login (saves a profile), logout, profiles, whoami, and the
 * owner's account commands (account show, account tokens list|create|revoke).
 */
import type { Command } from 'commander';
import { RelayClient } from '../client.js';
import type { TokenInfo } from '../types.js';
import {
  checkUrl,
  configFile,
  DEFAULT_PROFILE,
  DEFAULT_URL,
  readProfiles,
  resolveConnection,
  writeProfiles,
} from './config.js';
import { connect, flagsOf, withConnection, type CommonFlags } from './connection.js';
import { integerFlag, UsageError } from './input.js';
import { isoTime, Output, table } from './output.js';

async function readTokenFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError('no token given: pass --token <token>, or pipe it on stdin');
  }
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.trim();
}

interface LoginFlags extends CommonFlags {
  url?: string;
  token?: string;
  profile?: string;
}

async function loginCommand(...args: unknown[]) {
  const flags = flagsOf<LoginFlags>(args);
  const out = new Output(flags);
  const url = checkUrl(flags.url ?? process.env.RELAY_URL ?? DEFAULT_URL, '--url');
  const token = flags.token ?? (await readTokenFromStdin());
  if (token === '') throw new UsageError('the token is empty');
  // the token must work before it is saved
  const me = await new RelayClient({ url, token }).whoami();
  const data = readProfiles();
  const name = flags.profile ?? DEFAULT_PROFILE;
  data.profiles[name] = { url, token, account: me.account };
  data.current = name;
  const file = writeProfiles(data);
  out.result(
    { profile: name, url, account: me.account, role: me.role, file },
    () =>
      `logged in to ${url} as account ${me.account} (${me.role} token); saved as profile ${name} in ${file}`,
  );
}

async function logoutCommand(...args: unknown[]) {
  const flags = flagsOf<LoginFlags>(args);
  const data = readProfiles();
  const name = flags.profile ?? data.current;
  if (!data.profiles[name]) throw new UsageError(`no profile named ${name}`);
  delete data.profiles[name];
  if (data.current === name) data.current = Object.keys(data.profiles)[0] ?? DEFAULT_PROFILE;
  writeProfiles(data);
  new Output(flags).result({ profile: name, removed: true }, () => `removed profile ${name}`);
}

async function profilesCommand(...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const data = readProfiles();
  const list = Object.entries(data.profiles).map(([name, p]) => ({
    name,
    url: p.url,
    account: p.account ?? null,
    current: name === data.current,
  }));
  new Output(flags).result({ file: configFile(), current: data.current, profiles: list }, () =>
    list.length === 0
      ? `no profiles in ${configFile()}; create one with ${flags.program} login`
      : table([
          ['', 'PROFILE', 'URL', 'ACCOUNT'],
          ...list.map((p) => [p.current ? '*' : '', p.name, p.url, p.account ?? '-']),
        ]),
  );
}

async function useProfileCommand(name: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const data = readProfiles();
  if (!data.profiles[name]) throw new UsageError(`no profile named ${name}`);
  data.current = name;
  writeProfiles(data);
  new Output(flags).result({ current: name }, () => `now using profile ${name}`);
}

async function whoamiCommand(...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const connection = resolveConnection(flags);
  const me = await new RelayClient(connection).whoami();
  const shown = { url: connection.url, source: connection.source, ...me };
  new Output(flags).result(shown, () =>
    [
      `account   ${me.account} (plan ${me.plan})`,
      `token     ${me.tokenId} (${me.role})`,
      `channels  ${me.channels === null ? 'all' : me.channels.join(', ')}`,
      `expires   ${me.expiresMs === null ? 'never' : isoTime(me.expiresMs)}`,
      `relay     ${connection.url} (token from ${connection.source})`,
    ].join('\n'),
  );
}

async function accountShowCommand(...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const account = await connect(flags).account();
  new Output(flags).result(account, () =>
    [
      `account  ${account.id} (plan ${account.plan})`,
      ...Object.entries(account.usage ?? {}).map(([k, v]) => `  ${k.padEnd(24)}${v}`),
      'limits',
      ...Object.entries(account.limits ?? {}).map(([k, v]) => `  ${k.padEnd(24)}${v ?? '-'}`),
    ].join('\n'),
  );
}

const tokenRow = (t: TokenInfo) => [
  t.id,
  t.role ?? 'relay',
  t.name ?? '-',
  t.channels === null ? 'all' : t.channels.join(','),
  t.expiresMs === null ? 'never' : isoTime(t.expiresMs),
];

async function tokensListCommand(...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const list = await connect(flags).tokens();
  new Output(flags).result(list, () =>
    table([['ID', 'ROLE', 'NAME', 'CHANNELS', 'EXPIRES'], ...list.tokens.map(tokenRow)]),
  );
}

interface TokenCreateFlags extends CommonFlags {
  name?: string;
  channels?: string;
  expiresIn?: string;
  role?: 'relay' | 'owner';
}

async function tokensCreateCommand(...args: unknown[]) {
  const flags = flagsOf<TokenCreateFlags>(args);
  if (flags.role !== undefined && flags.role !== 'relay' && flags.role !== 'owner') {
    throw new UsageError(`--role must be relay or owner, not "${flags.role}"`);
  }
  const created = await connect(flags).createToken({
    name: flags.name,
    channels: flags.channels?.split(',').filter((c) => c !== ''),
    expiresInSeconds:
      flags.expiresIn === undefined ? undefined : integerFlag(flags.expiresIn, '--expires-in', 1),
    role: flags.role,
  });
  new Output(flags).result(
    created,
    () => `${created.token}\n(token ${created.id}; shown once: store it now)`,
  );
}

async function tokensRevokeCommand(tokenId: string, ...args: unknown[]) {
  const flags = flagsOf<CommonFlags>(args);
  const result = await connect(flags).revokeToken(tokenId);
  new Output(flags).result(result, () => `revoked token ${tokenId}`);
}

export function registerAccountCommands(program: Command): void {
  program
    .command('login')
    .description('check a token and save it with its relay as a profile')
    .option('--url <url>', `relay address (default: $RELAY_URL or ${DEFAULT_URL})`)
    .option('--token <token>', 'the token (default: read from stdin)')
    .option('--profile <name>', 'profile name', DEFAULT_PROFILE)
    .option('--json', 'print JSON')
    .action(loginCommand);
  program
    .command('logout')
    .description('remove a saved profile (default: the current one)')
    .option('--profile <name>', 'profile name')
    .option('--json', 'print JSON')
    .action(logoutCommand);
  const profiles = program
    .command('profiles')
    .description(`saved profiles of ${program.name()} login`);
  profiles
    .command('list', { isDefault: true })
    .description('list the saved profiles')
    .option('--json', 'print JSON')
    .action(profilesCommand);
  profiles
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'profile name')
    .option('--json', 'print JSON')
    .action(useProfileCommand);

  withConnection(
    program.command('whoami').description("show the token's account, role, channels and expiry"),
  ).action(whoamiCommand);

  const account = program.command('account').description("the account's own API (owner tokens)");
  withConnection(
    account.command('show').description("show the account's plan, usage and limits"),
  ).action(accountShowCommand);
  const tokens = account.command('tokens').description("the account's tokens (owner tokens)");
  withConnection(
    tokens.command('list', { isDefault: true }).description('list tokens (never their secrets)'),
  ).action(tokensListCommand);
  withConnection(
    tokens
      .command('create')
      .description('create a token (its secret is shown once)')
      .option('--name <name>', 'a name to recognise it by')
      .option('--channels <ids>', 'comma-separated channels it may use (default: all)')
      .option('--expires-in <seconds>', 'seconds until it expires (default: never)')
      .option('--role <role>', 'relay (default) or owner'),
  ).action(tokensCreateCommand);
  withConnection(
    tokens.command('revoke').description('revoke a token').argument('<tokenId>', 'token id'),
  ).action(tokensRevokeCommand);
}
