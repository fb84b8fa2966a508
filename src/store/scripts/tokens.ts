/** lua/token_create.lua and lua/token_revoke.lua: an account's tokens (only their secrets' hashes). */
import { defineScript } from './define';

export interface TokenCreateArgs {
  token_id: string;
  /** the token record's JSON */
  record: string;
  /** '1': held within the plan's max_tokens; '0': not counted (dashboard sessions) */
  counted: '0' | '1';
}

export const tokenCreateScript = defineScript<TokenCreateArgs>({
  name: 'token_create',
  keys: ['account'],
  argv: ['token_id', 'record', 'counted'],
});

export interface TokenRevokeArgs {
  token_id: string;
}

export const tokenRevokeScript = defineScript<TokenRevokeArgs>({
  name: 'token_revoke',
  keys: ['account'],
  argv: ['token_id'],
});
