/** lua/authorize.lua: check a caller and count its request, for operations of several calls. */
import { defineScript, type CallerArgs } from './define';

export interface AuthorizeArgs extends CallerArgs {
  /** the channel the request uses ('' for none) */
  channel: string;
}

export const authorizeScript = defineScript<AuthorizeArgs>({
  name: 'authorize',
  keys: ['account', 'caller'],
  argv: ['token_id', 'proof', 'rate', 'channel'],
});

/** [token record json or null (an account caller), plan name] */
export type AuthorizeReply = [string | null, string];
