/** GET /v1/openapi.json: the document, without auth, built once per app. */
import { Router } from 'express';
import { resource } from '../web/route';
import { buildOpenApi } from './document';

export function openapiRouter(): Router {
  const router = Router();
  const body = JSON.stringify(buildOpenApi());
  resource(router, '/v1/openapi.json', {
    get: (_req, res) => {
      res
        .status(200)
        .type('application/json')
        .set('Cache-Control', 'public, max-age=300')
        .send(body);
    },
  });
  return router;
}
