/**
 * The key in a webhook URL (`/hooks/<key>`), self-describing like a token:
 * `wh_<webhook id><secret>_<account id>`. The webhook id (16 hex) finds the
 * record, the secret (43 base64url characters, 256 random bits) proves it,
 * and the account id names the hash tag the record lives under, so a lookup
 * touches one slot. Only sha256(secret) is stored. The `wh_` prefix keeps it
 * from ever passing for an API token (those start `rq_`).
 */
import { newSecret, newTokenId } from '../auth/tokens';
import { ID_PATTERN } from '../schemas/ids';

const PREFIX = 'wh_';
const ID_CHARS = 16;
const SECRET_CHARS = 43;

export interface HookKey {
  webhookId: string;
  secret: string;
  accountId: string;
}

export function newHookKey(accountId: string): HookKey {
  return { webhookId: newTokenId(), secret: newSecret(), accountId };
}

export function formatHookKey(key: HookKey): string {
  return `${PREFIX}${key.webhookId}${key.secret}_${key.accountId}`;
}

export function parseHookKey(text: string): HookKey | null {
  if (!text.startsWith(PREFIX) || text.length > 512) return null;
  const webhookId = text.slice(PREFIX.length, PREFIX.length + ID_CHARS);
  const secret = text.slice(PREFIX.length + ID_CHARS, PREFIX.length + ID_CHARS + SECRET_CHARS);
  const rest = text.slice(PREFIX.length + ID_CHARS + SECRET_CHARS);
  if (!/^[0-9a-f]{16}$/.test(webhookId) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  if (!rest.startsWith('_') || !ID_PATTERN.test(rest.slice(1))) return null;
  return { webhookId, secret, accountId: rest.slice(1) };
}
