/**
 * Where the CLI finds its relay and token: flags first, then the environment
 * (RELAY_URL, RELAY_TOKEN), then the profile file written by `relayq login`
 * (`$XDG_CONFIG_HOME/relayq/config.json`, else `~/.config/relayq/config.json`,
 * `%APPDATA%\relayq\config.json` on Windows; mode 0600, several named profiles).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './input.js';

export const DEFAULT_URL = 'http://localhost:8080';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  url: string;
  token: string;
  /** The account the token belongs to, as seen at login. */
  account?: string;
}

export interface ProfileFile {
  /** The profile used when none is named. */
  current: string;
  profiles: Record<string, Profile>;
}

export interface ConnectionFlags {
  url?: string;
  token?: string;
  profile?: string;
  /** the program the user ran (`relayq`, `relayq-client`), named in hints */
  program?: string;
}

export interface Connection {
  url: string;
  token: string;
  /** Where the token came from, for whoami and error hints. */
  source: 'flag' | 'environment' | `profile ${string}`;
}

type Env = Record<string, string | undefined>;

export function configFile(env: Env = process.env): string {
  if (env.RELAYQ_CONFIG) return env.RELAYQ_CONFIG;
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA
      ? env.APPDATA
      : path.join(os.homedir(), '.config'));
  return path.join(base, 'relayq', 'config.json');
}

export function readProfiles(env: Env = process.env): ProfileFile {
  const file = configFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { current: DEFAULT_PROFILE, profiles: {} };
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<ProfileFile>;
    return {
      current: typeof parsed.current === 'string' ? parsed.current : DEFAULT_PROFILE,
      profiles: typeof parsed.profiles === 'object' && parsed.profiles ? parsed.profiles : {},
    };
  } catch {
    throw new UsageError(`${file} is not valid JSON; fix it or delete it and log in again`);
  }
}

/** Writes the profile file readable by its owner only (it holds tokens). */
export function writeProfiles(data: ProfileFile, env: Env = process.env): string {
  const file = configFile(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return file;
}

export function checkUrl(url: string, where: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageError(`${where} must be an http:// or https:// address, not "${url}"`);
  }
  return url.replace(/\/+$/, '');
}

/** The relay and token of a command: flags, then environment, then the profile. */
export function resolveConnection(flags: ConnectionFlags, env: Env = process.env): Connection {
  const named = flags.profile ?? env.RELAY_PROFILE;
  const program = flags.program ?? 'relayq';
  const file = readProfiles(env);
  const profileName = named ?? file.current;
  const profile = file.profiles[profileName];
  if (named !== undefined && !profile) {
    const known = Object.keys(file.profiles);
    throw new UsageError(
      `no profile named ${named}${known.length ? ` (profiles: ${known.join(', ')})` : ''}; create it with ${program} login --profile ${named}`,
    );
  }
  const url = flags.url ?? env.RELAY_URL ?? profile?.url ?? DEFAULT_URL;
  let token: string | undefined;
  let source: Connection['source'];
  if (flags.token) [token, source] = [flags.token, 'flag'];
  else if (env.RELAY_TOKEN) [token, source] = [env.RELAY_TOKEN, 'environment'];
  else [token, source] = [profile?.token, `profile ${profileName}`];
  if (!token) {
    throw new UsageError(
      `no relay token: pass --token, set RELAY_TOKEN, or run ${program} login --token <token>`,
    );
  }
  return { url: checkUrl(url, flags.url ? '--url' : 'the relay address'), token, source };
}
