/**
 * The endpoint table (src/web/endpointTable.ts) answers its paths as an Express Router
 * answers the same resources: the same requests reach the same handler with the same
 * params, the same ones are 405s, 400s (broken percent-encoding) or left to the rest of
 * the stack. Compared request by request against a Router in front of the same tail.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { EndpointTable, inFront } from '../../src/web/endpointTable';
import { resource, type Routes } from '../../src/web/route';
import { errorHandler, unknownRoute } from '../../src/web/errorHandler';
import pino from 'pino';

const base = '/v1/relay/channels/:channelId/messages';

function declare(routes: Routes): void {
  resource(routes, base, {
    post: (req) => ({ send: req.params.channelId }),
  });
  resource(routes, `${base}/pull`, {
    post: async (req) => {
      await new Promise((r) => setImmediate(r));
      return { pull: req.params.channelId };
    },
  });
  // what handlers read of Express's request and response
  resource(routes, `${base}/seen`, {
    post: (req, res) => ({
      originalUrl: req.originalUrl,
      baseUrl: req.baseUrl,
      path: req.path,
      query: req.query,
      protocol: req.protocol,
      secure: req.secure,
      ip: req.ip,
      hostname: req.hostname,
      header: req.get('x-probe') ?? null,
      locals: typeof res.locals,
      app: typeof req.app?.get,
    }),
  });
  resource(routes, `${base}/subscribe`, {
    get: (req) => {
      throw Object.assign(new Error(`subscribe ${String(req.params.channelId)}`), { status: 400 });
    },
  });
}

const tail: [RequestHandler, ErrorRequestHandler] = [
  unknownRoute,
  errorHandler(pino({ enabled: false })),
];
const marked: RequestHandler = (req, _res, next) => {
  (req as { marked?: boolean }).marked = true;
  next();
};

function withRouter() {
  const app = express();
  const router = express.Router();
  declare(router);
  app.use(router, ...tail);
  return app;
}

function withTable() {
  const app = express();
  app.use(...tail);
  const table = new EndpointTable();
  declare(table);
  return inFront(app, [{ table, prepare: [marked] }], tail[1]);
}

const cases: [string, string][] = [
  ['post', '/v1/relay/channels/orders/messages'],
  ['post', '/v1/relay/channels/orders/messages/'],
  ['post', '/V1/Relay/Channels/Orders/MESSAGES'],
  ['post', '/v1/relay/channels/orders/messages?x=1&y=/2'],
  ['post', '/v1/relay/channels/a%20b%2Fc/messages'],
  ['post', '/v1/relay/channels/a%ZZ/messages'],
  ['post', '/v1/relay/channels//messages'],
  ['post', '/v1/relay/channels/orders/messages//'],
  ['post', '/v1/relay/channels/orders/messages/pull'],
  ['post', '/v1/relay/channels/orders/messages/pull/'],
  ['post', '/v1/relay/channels/orders/messages/unknown'],
  ['post', '/v1/relay/channels/a/b/messages'],
  ['get', '/v1/relay/channels/orders/messages'],
  ['put', '/v1/relay/channels/orders/messages/pull'],
  ['delete', '/v1/relay/channels/orders/messages'],
  ['options', '/v1/relay/channels/orders/messages'],
  ['head', '/v1/relay/channels/orders/messages'],
  ['get', '/v1/relay/channels/orders/messages/subscribe'],
  ['head', '/v1/relay/channels/orders/messages/subscribe'],
  ['post', '/v1/relay/channels/orders/messages/subscribe'],
  ['post', '/v1/relay/channels/orders'],
  ['post', '/v1/relay/channels/orders/messages/seen'],
  ['post', '/v1/relay/channels/orders/messages/seen?a=1&b=two'],
];

test.each(cases)('%s %s: the table answers as a Router does', async (method, url) => {
  const [expected, actual] = await Promise.all(
    [withRouter(), withTable()].map(async (app) => {
      const res = await request(app)[method as 'get'](url).set('X-Probe', 'probe');
      return { status: res.status, allow: res.headers.allow, body: res.body as unknown };
    }),
  );
  expect(actual).toEqual(expected);
});

test("each lane's preparing middlewares run, in order, only for its own endpoints", async () => {
  const seen: string[] = [];
  const mark =
    (name: string): RequestHandler =>
    (req, _res, next) => {
      seen.push(`${name} ${req.url}`);
      ((req as { marks?: string[] }).marks ??= []).push(name);
      next();
    };
  const marks = (req: express.Request) => ({ marks: (req as { marks?: string[] }).marks });
  const messages = new EndpointTable();
  resource(messages, base, { post: marks });
  const hooks = new EndpointTable();
  resource(hooks, '/hooks/:key', { post: marks });
  const rest = express();
  rest.use(...tail);
  const app = inFront(
    rest,
    [
      { table: messages, prepare: [mark('body'), mark('caller')] },
      { table: hooks, prepare: [mark('log')] },
    ],
    tail[1],
  );
  expect((await request(app).post('/v1/relay/channels/c/messages')).body.result).toEqual({
    marks: ['body', 'caller'],
  });
  expect((await request(app).post('/hooks/k')).body.result).toEqual({ marks: ['log'] });
  expect((await request(app).post('/v1/relay/channels/c/other')).status).toBe(404);
  expect(seen).toEqual([
    'body /v1/relay/channels/c/messages',
    'caller /v1/relay/channels/c/messages',
    'log /hooks/k',
  ]);
});

test("a preparing middleware's error is answered by the error handler, and the handler does not run", async () => {
  let ran = false;
  const table = new EndpointTable();
  resource(table, base, {
    post: () => {
      ran = true;
      return {};
    },
  });
  const refuse: RequestHandler = (_req, _res, next) =>
    next(Object.assign(new Error('bad'), { status: 400 }));
  const rest = express();
  rest.use(...tail);
  const app = inFront(rest, [{ table, prepare: [refuse] }], tail[1]);
  const res = await request(app).post('/v1/relay/channels/c/messages');
  expect(res.status).toBe(400);
  expect(ran).toBe(false);
});
