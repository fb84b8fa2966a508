/**
 * A table of resources answered without a router: for the busiest endpoints, where an
 * Express router's per-request work (its layers, their matching and `next` chains, the
 * nested routers' URL rewriting) is a measurable part of a request (BENCHMARKS.md, "The
 * message endpoints without a router"). Resources are declared with the same
 * `resource()` as everywhere else; paths match as Express matches them (case-insensitive,
 * an optional trailing slash, `:name` one percent-decoded segment; HEAD answered by GET).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  ErrorRequestHandler,
  Express,
  NextFunction,
  Request,
  RequestHandler,
  Response,
} from 'express';
import type { RouteHandler as Handler, Routes } from './route';

/** What serves HTTP requests: a Node request listener, or a middleware of an outer app. */
export type HttpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (err?: unknown) => void,
) => void;

interface Entry {
  pattern: RegExp;
  names: string[];
  methods: Map<string, Handler>;
  all?: Handler;
}

/** A matched request: what the table will run once the request is prepared. */
export interface Match {
  run(req: Request, res: Response, next: NextFunction): void;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escape(segment);
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`, 'i'), names };
}

export class EndpointTable implements Routes {
  private readonly entries: Entry[] = [];

  private entry(path: string): Entry {
    const compiled = compile(path);
    let found = this.entries.find((e) => e.pattern.source === compiled.pattern.source);
    if (!found) {
      found = { ...compiled, methods: new Map() };
      this.entries.push(found);
    }
    return found;
  }

  get(path: string, handler: Handler): void {
    this.entry(path).methods.set('GET', handler);
  }
  post(path: string, handler: Handler): void {
    this.entry(path).methods.set('POST', handler);
  }
  put(path: string, handler: Handler): void {
    this.entry(path).methods.set('PUT', handler);
  }
  patch(path: string, handler: Handler): void {
    this.entry(path).methods.set('PATCH', handler);
  }
  delete(path: string, handler: Handler): void {
    this.entry(path).methods.set('DELETE', handler);
  }
  all(path: string, handler: Handler): void {
    this.entry(path).all = handler;
  }

  /** The request's endpoint, or null when no resource of the table has its path. */
  match(req: { url?: string; method?: string }): Match | null {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    for (const entry of this.entries) {
      const found = entry.pattern.exec(path);
      if (!found) continue;
      // as Express: HEAD is answered by GET (no resource declares HEAD)
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const handler = (method !== undefined && entry.methods.get(method)) || entry.all;
      if (!handler) return null;
      return {
        run(req, res, next) {
          try {
            const params: Record<string, string> = {};
            entry.names.forEach(
              (name, i) => (params[name] = decodeURIComponent(found[i + 1] ?? '')),
            );
            req.params = params;
            const result = handler(req, res);
            // as Express: a promise rejected without a reason is still an error
            if (result instanceof Promise) {
              result.catch((err: unknown) => next(err ?? new Error('Rejected promise')));
            }
          } catch (err) {
            next(err);
          }
        },
      };
    }
    return null;
  }
}

/** Endpoints answered in front of the app, and what prepares their requests. */
export interface FrontLane {
  table: EndpointTable;
  /** run in order before the handler (the request log, the body reader, the caller) */
  prepare: RequestHandler[];
}

/**
 * The app with tables in front. A request on one of a table's paths is answered there
 * without the app's router: prepared as Express and its router prepare a request (its
 * request and response prototypes, the locals, originalUrl and baseUrl), then its lane's
 * `prepare`, then its handler; an error goes to `onError`. Any other request goes to the app.
 */
export function inFront(
  app: Express,
  lanes: FrontLane[],
  onError: ErrorRequestHandler,
): HttpHandler {
  // an Express app is called as a middleware with its next (its types omit that form)
  const rest = app as unknown as HttpHandler;
  return (incoming, outgoing, outer) => {
    let match: Match | null = null;
    let prepare: RequestHandler[] = [];
    for (const lane of lanes) {
      match = lane.table.match(incoming);
      if (match) {
        prepare = lane.prepare;
        break;
      }
    }
    if (!match) return rest(incoming, outgoing, outer);
    const endpoint = match;
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    // what the app's router would have set on its way in
    req.originalUrl ??= req.url;
    req.baseUrl = '';
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    if (!res.locals) res.locals = Object.create(null) as Response['locals'];
    // a handler that passes the request on (none does) leaves it to the app
    const next = (err?: unknown): void => {
      if (err) onError(err, req, res, () => res.end());
      else rest(req, res, outer);
    };
    let step = 0;
    const go = (err?: unknown): void => {
      if (err) return next(err);
      const middleware = prepare[step++];
      if (middleware) return void middleware(req, res, go);
      endpoint.run(req, res, next);
    };
    go();
  };
}
