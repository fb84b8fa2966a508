/**
 * GET /v1/openapi.json: the document, without auth, built once per app. Its
 * `servers` is the address the request came to (RELAY_PUBLIC_URL when set),
 * so that a client generated from it calls this relay.
 */
import { Router } from 'express';
import type { Config } from '../config';
import { publicBaseUrl } from '../web/publicUrl';
import { resource } from '../web/route';
import { buildOpenApi } from './document';

const SERVERS = '\u0000servers';

export function openapiRouter(config: Pick<Config, 'publicUrl'>): Router {
  const router = Router();
  // the document's text around its servers entry, joined per request
  const [before, after] = JSON.stringify({ ...buildOpenApi(), servers: SERVERS }).split(
    JSON.stringify(SERVERS),
  );
  resource(router, '/v1/openapi.json', {
    get: (req, res) => {
      const servers = [{ url: publicBaseUrl(config, req), description: 'this relay' }];
      res
        .status(200)
        .type('application/json')
        .set('Cache-Control', 'public, max-age=300')
        .send(before + JSON.stringify(servers) + after);
    },
  });
  return router;
}
