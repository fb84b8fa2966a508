/** lua/routes_set.lua: replace or remove a channel's routes, keeping the reverse index of targets. */
import { defineScript } from './define';

export interface RoutesSetArgs {
  channel: string;
  /** '' removes the routes */
  routes_json: string;
}

export const routesSetScript = defineScript<RoutesSetArgs>({
  name: 'routes_set',
  keys: ['account', 'routes'],
  argv: ['channel', 'routes_json'],
});
