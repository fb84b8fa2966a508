/** lua/account_gauges.lua: one account's backlog, exact at this moment, for the gauges. */
import { defineScript } from './define';

export interface AccountGaugesArgs {
  /** the number of channels (every channel of the account); their ids follow */
  n: number;
}

export const accountGaugesScript = defineScript<AccountGaugesArgs>({
  name: 'account_gauges',
  keys: ['account', 'channels'],
  argv: ['n'],
});
