/**
 * The dashboard's static files: read once at start-up, served under names that
 * carry a hash of their content (cached for a year, immutable), with index.html
 * rewritten to point at them and served with a strict Content-Security-Policy.
 * The icon is also at /favicon.ico, where browsers look for it on any page.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function publicDir(): string {
  for (const candidate of [
    path.resolve(__dirname, 'public'),
    path.resolve(__dirname, '..', '..', '..', 'src', 'dashboard', 'public'),
  ]) {
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  throw new Error(`cannot find the dashboard's public/ folder near ${__dirname}`);
}

interface Asset {
  body: Buffer;
  type: string;
}

/**
 * Security headers of every response under /dashboard (the page, its assets and
 * the session API, errors included): nothing is stored by caches but the
 * immutable hashed assets, nothing sniffed, framed or sent as a referrer.
 */
export const dashboardHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  next();
};

export function dashboardRouter(): Router {
  const dir = publicDir();
  const assets = new Map<string, Asset>();
  let favicon: Asset | null = null;
  let index = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  for (const file of fs.readdirSync(dir)) {
    const ext = path.extname(file);
    if (!TYPES[ext]) continue;
    const body = fs.readFileSync(path.join(dir, file));
    const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
    const hashed = `${path.basename(file, ext)}.${hash}${ext}`;
    assets.set(hashed, { body, type: TYPES[ext] });
    if (file === 'favicon.ico') favicon = { body, type: TYPES[ext] };
    index = index.split(`./${file}`).join(`/dashboard/assets/${hashed}`);
  }

  const router = Router();
  router.get(['/dashboard', '/dashboard/'], (_req, res) => {
    res.locals.route = '/dashboard';
    res.type('html').send(index);
  });
  router.get('/favicon.ico', (_req, res, next) => {
    if (!favicon) return next();
    res.locals.route = '/favicon.ico';
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type(favicon.type).send(favicon.body);
  });
  router.get('/dashboard/assets/:name', (req, res, next) => {
    res.locals.route = '/dashboard/assets/:name';
    const asset = assets.get(String(req.params.name));
    if (!asset) return next();
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(asset.type).send(asset.body);
  });
  return router;
}
