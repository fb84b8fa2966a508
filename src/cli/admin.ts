/**
 * Operator commands: `relayq accounts ...` and `relayq tokens ...`, each one
 * call of the admin API (docs/api/admin.md). Output is JSON when stdout is
 * not a terminal (or with --json), readable lines when it is.
 */
import type { Command } from 'commander';
import {
  adminRequest,
  CliError,
  connection,
  parseDuration,
  usageError,
  type Connection,
} from './adminClient';

interface Account {
  id: string;
  plan: string;
  usage?: { storage_bytes: number; channels: number };
}

interface Token {
  id: string;
  token?: string;
  name: string | null;
  channels: string[] | null;
  expires_ms: number | null;
  created_ms?: number;
}

interface CommonFlags {
  url?: string;
  adminToken?: string;
  json?: boolean;
}

function withConnectionFlags(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'address of relayq (default: $RELAY_URL or http://localhost:8080)')
    .option('--admin-token <token>', 'the operator token (default: $RELAY_ADMIN_TOKEN)')
    .option('--json', 'print JSON even on a terminal');
}

/** Runs an action: prints JSON or readable lines, or the error in plain words (exit 1, or 2 for a usage error). */
function action<A extends unknown[]>(
  run: (conn: Connection, ...args: A) => Promise<{ json: unknown; text: string }>,
) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const flags = cmd.opts<CommonFlags>();
    try {
      const out = await run(connection(flags), ...(args.slice(0, -1) as A));
      if (flags.json || !process.stdout.isTTY) {
        process.stdout.write(`${JSON.stringify(out.json, null, 2)}\n`);
      } else {
        process.stdout.write(`${out.text}\n`);
      }
    } catch (err) {
      const message = err instanceof CliError ? err.message : `unexpected failure: ${String(err)}`;
      process.stderr.write(`relayq: ${message}\n`);
      process.exitCode = err instanceof CliError && err.usage ? 2 : 1;
    }
  };
}

const path = (account: string, ...rest: string[]) =>
  ['/v1/admin/accounts', account, ...rest].map(encodeURIComponent).join('/').replace(/%2F/g, '/');

function bytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB (${n} bytes)`;
  return `${(n / 1_000_000).toFixed(1)} MB (${n} bytes)`;
}

function when(ms: number | null | undefined, none: string): string {
  return ms === null || ms === undefined ? none : new Date(ms).toISOString();
}

function accountLines(a: Account): string {
  const lines = [`account   ${a.id}`, `plan      ${a.plan}`];
  if (a.usage) {
    lines.push(`storage   ${bytes(a.usage.storage_bytes)}`, `channels  ${a.usage.channels}`);
  }
  return lines.join('\n');
}

function tokenLines(t: Token): string {
  return [
    `id        ${t.id}`,
    `name      ${t.name ?? '(none)'}`,
    `channels  ${t.channels ? t.channels.join(', ') : 'all channels of the account'}`,
    `expires   ${when(t.expires_ms, 'never')}`,
  ].join('\n');
}

function tokenTable(tokens: Token[]): string {
  if (tokens.length === 0) return 'no tokens';
  const rows = [
    ['ID', 'NAME', 'CHANNELS', 'EXPIRES', 'CREATED'],
    ...tokens.map((t) => [
      t.id,
      t.name ?? '-',
      t.channels ? t.channels.join(',') : '*',
      when(t.expires_ms, 'never'),
      when(t.created_ms, '-'),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function channelList(raw: string): string[] {
  const channels = raw
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (channels.length === 0) {
    throw usageError('--channels must name at least one channel, e.g. --channels orders,alerts');
  }
  return channels;
}

export function registerAdminCommands(program: Command): void {
  const accounts = program
    .command('accounts')
    .description('manage accounts through the admin API (needs RELAY_ADMIN_TOKEN)');

  withConnectionFlags(
    accounts
      .command('create <account>')
      .description('create an account')
      .option('--plan <plan>', "the account's plan (default: the service's default plan)"),
  ).action(
    action(async (conn, id: string, opts: { plan?: string }) => {
      const a = await adminRequest<Account>(conn, 'POST', '/v1/admin/accounts', {
        id,
        ...(opts.plan ? { plan: opts.plan } : {}),
      });
      return { json: a, text: `created account ${a.id} on plan ${a.plan}` };
    }),
  );

  withConnectionFlags(
    accounts.command('show <account>').description("show an account's plan and usage"),
  ).action(
    action(async (conn, id: string) => {
      const a = await adminRequest<Account>(conn, 'GET', path(id));
      return { json: a, text: accountLines(a) };
    }),
  );

  withConnectionFlags(
    accounts
      .command('set-plan <account> <plan>')
      .description("change an account's plan; its limits change at once"),
  ).action(
    action(async (conn, id: string, plan: string) => {
      const a = await adminRequest<Account>(conn, 'PATCH', path(id), { plan });
      return { json: a, text: `account ${a.id} is now on plan ${a.plan}` };
    }),
  );

  withConnectionFlags(
    accounts
      .command('delete <account>')
      .description('delete an account with all its channels, messages and tokens'),
  ).action(
    action(async (conn, id: string) => {
      const result = await adminRequest<unknown>(conn, 'DELETE', path(id));
      return { json: result, text: `deleted account ${id} with all its data and tokens` };
    }),
  );

  const tokens = program
    .command('tokens')
    .description("manage an account's relay API tokens (needs RELAY_ADMIN_TOKEN)");

  withConnectionFlags(
    tokens
      .command('create <account>')
      .description('create a token; its secret is shown only this once')
      .option('--name <name>', 'a name to recognise the token by')
      .option('--channels <list>', 'comma-separated channels the token may use (default: all)')
      .option('--expires-in <duration>', 'lifetime: seconds, or with a suffix: 90s, 15m, 12h, 7d')
      .option('--role <role>', 'relay (send, pull, ack, subscribe) or owner (also manages tokens)'),
  ).action(
    action(
      async (
        conn,
        account: string,
        opts: { name?: string; channels?: string; expiresIn?: string; role?: string },
      ) => {
        const body: Record<string, unknown> = {};
        if (opts.name !== undefined) body.name = opts.name;
        if (opts.channels !== undefined) body.channels = channelList(opts.channels);
        if (opts.expiresIn !== undefined) body.expires_in_seconds = parseDuration(opts.expiresIn);
        if (opts.role !== undefined) body.role = opts.role;
        const t = await adminRequest<Token>(conn, 'POST', path(account, 'tokens'), body);
        const text = [
          `token     ${t.token}`,
          tokenLines(t),
          '',
          'This is the only time the token is shown: store it now.',
        ].join('\n');
        return { json: t, text };
      },
    ),
  );

  withConnectionFlags(
    tokens.command('list <account>').description("list an account's tokens (never their secrets)"),
  ).action(
    action(async (conn, account: string) => {
      const result = await adminRequest<{ tokens: Token[] }>(conn, 'GET', path(account, 'tokens'));
      return { json: result, text: tokenTable(result.tokens) };
    }),
  );

  withConnectionFlags(
    tokens
      .command('revoke <account> <tokenId>')
      .description('revoke a token: it is refused from the next request on'),
  ).action(
    action(async (conn, account: string, tokenId: string) => {
      const result = await adminRequest<unknown>(conn, 'DELETE', path(account, 'tokens', tokenId));
      return { json: result, text: `revoked token ${tokenId} of account ${account}` };
    }),
  );
}
