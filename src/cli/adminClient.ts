/**
 * The operator CLI's side of the admin API: one request, its envelope
 * unwrapped, and every failure turned into one plain sentence (CliError).
 */

export class CliError extends Error {
  /** A mistake in the command line (exit 2), not a failure of the call (exit 1). */
  readonly usage: boolean;

  constructor(message: string, usage = false) {
    super(message);
    this.name = 'CliError';
    this.usage = usage;
  }
}

/** A mistake in the command line: exit 2, as for every relayq command. */
export const usageError = (message: string): CliError => new CliError(message, true);

export interface Connection {
  /** base address of the service, without a trailing slash */
  url: string;
  adminToken: string;
}

const DEFAULT_URL = 'http://localhost:8080';
const TIMEOUT_MS = 30_000;

/** The service's address and admin token: flags first, then RELAY_URL / RELAY_ADMIN_TOKEN. */
export function connection(
  flags: { url?: string; adminToken?: string },
  env: Record<string, string | undefined> = process.env,
): Connection {
  const raw = flags.url || env.RELAY_URL || DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw usageError(`--url (or RELAY_URL) must be a URL such as ${DEFAULT_URL}, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw usageError(`--url (or RELAY_URL) must start with http:// or https://, got "${raw}"`);
  }
  const adminToken = flags.adminToken || env.RELAY_ADMIN_TOKEN || '';
  if (adminToken === '') {
    throw usageError('no admin token: set RELAY_ADMIN_TOKEN or pass --admin-token <token>');
  }
  return { url: raw.replace(/\/+$/, ''), adminToken };
}

interface Envelope {
  success: boolean;
  errors?: { code: number; message: string }[];
  result: unknown;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && 'success' in value && 'result' in value;
}

function unreachable(conn: Connection, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if ((err as Error).name === 'TimeoutError') {
    return new CliError(`relayq at ${conn.url} did not answer within ${TIMEOUT_MS / 1000} s`);
  }
  if (cause?.code === 'ECONNREFUSED' || cause?.code === undefined) {
    return new CliError(`cannot reach relayq at ${conn.url}: is it running?`);
  }
  if (cause.code === 'ENOTFOUND' || cause.code === 'EAI_AGAIN') {
    return new CliError(`cannot reach relayq at ${conn.url}: the host name is not known`);
  }
  return new CliError(`cannot reach relayq at ${conn.url}: ${cause.message ?? cause.code}`);
}

/** Calls the admin API; returns the envelope's result or throws a CliError. */
export async function adminRequest<T>(
  conn: Connection,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: object,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${conn.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${conn.adminToken}`,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw unreachable(conn, err);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isEnvelope(parsed)) {
    throw new CliError(
      `${conn.url} answered HTTP ${response.status} without a relayq envelope: is it relayq?`,
    );
  }
  if (parsed.success) return parsed.result as T;
  const message = parsed.errors?.[0]?.message ?? `HTTP ${response.status}`;
  if (response.status === 404 && message.startsWith('no such endpoint')) {
    throw new CliError(
      `the operator API is off at ${conn.url}: start relayq with RELAY_ADMIN_TOKEN set`,
    );
  }
  if (response.status === 401) {
    throw new CliError(`${message}: check RELAY_ADMIN_TOKEN or --admin-token`);
  }
  throw new CliError(message);
}

/** "90", "90s", "15m", "12h", "7d" -> seconds. */
export function parseDuration(raw: string): number {
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(raw);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[(match?.[2] ?? '').toLowerCase()];
  const seconds = match && unit ? Number(match[1]) * unit : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw usageError(
      `--expires-in must be a positive number of seconds, or one with an s, m, h or d suffix (e.g. 7d), got "${raw}"`,
    );
  }
  return seconds;
}
