/**
 * One notion of the client's scheme and address: X-Forwarded-* is believed only
 * from the proxies RELAY_TRUST_PROXY names, for the session cookie's Secure,
 * the Origin check and the logged client address alike. Every dashboard and
 * session response carries the security headers.
 */
import pino from 'pino';
import request from 'supertest';
import { buildApp, type RelayApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createRedis, type RedisClient } from '../../../src/store/redis';
import { ADMIN_TOKEN } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

// a Redis alone: each test builds pods whose log lines it keeps
const rq = useRelay({ pods: 0 });

interface Pod {
  relay: RelayApp;
  client: RedisClient;
  logs: Record<string, unknown>[];
}

/** An app whose JSON log lines are kept; trust = RELAY_TRUST_PROXY (undefined: unset). */
async function pod(trust: string | undefined): Promise<Pod> {
  const config = loadConfig({
    ...rq.redis.env,
    RELAY_ADMIN_TOKEN: ADMIN_TOKEN,
    ...(trust === undefined ? {} : { RELAY_TRUST_PROXY: trust }),
  });
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const client = createRedis(config.redis);
  const relay = buildApp({ config, redis: client, logger });
  await relay.start();
  return { relay, client, logs };
}

async function stop(p: Pod) {
  await p.relay.close();
  p.client.disconnect();
}

async function ownerToken(p: Pod): Promise<string> {
  await p.relay.store.accounts.create('acme', 'free');
  return (await p.relay.relay.tokens.issue('acme', { role: 'owner' })).token;
}

const signIn = (p: Pod, token: string, headers: Record<string, string>) =>
  request(p.relay.app).post('/dashboard/api/session').set(headers).send({ token });

const FORWARDED = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.7' };

function expectSecurityHeaders(res: request.Response) {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

test('without RELAY_TRUST_PROXY, forwarded headers are ignored everywhere', async () => {
  const p = await pod(undefined);
  try {
    const token = await ownerToken(p);
    const res = await signIn(p, token, FORWARDED);
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie'][0]).not.toMatch(/;\s*Secure/i);
    // The Origin check agrees: the request came over http, whatever the header says.
    const https = await signIn(p, token, {
      ...FORWARDED,
      Origin: 'https://relay.test',
      Host: 'relay.test',
    });
    expect(https.status).toBe(403);
    const http = await signIn(p, token, {
      ...FORWARDED,
      Origin: 'http://relay.test',
      Host: 'relay.test',
    });
    expect(http.status).toBe(200);
    const line = p.logs.find((l) => l.msg === 'request' && l.route === '/dashboard/api/session');
    expect(line?.client).toMatch(/127\.0\.0\.1$/);
  } finally {
    await stop(p);
  }
});

test('with RELAY_TRUST_PROXY naming the proxy, the cookie is Secure and the Origin check agrees', async () => {
  const p = await pod('loopback');
  try {
    const token = await ownerToken(p);
    const res = await signIn(p, token, FORWARDED);
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie'][0]).toMatch(/;\s*Secure/i);
    const https = await signIn(p, token, {
      ...FORWARDED,
      Origin: 'https://relay.test',
      Host: 'relay.test',
    });
    expect(https.status).toBe(200);
    const http = await signIn(p, token, {
      ...FORWARDED,
      Origin: 'http://relay.test',
      Host: 'relay.test',
    });
    expect(http.status).toBe(403);
    expect(p.logs.some((l) => l.msg === 'request' && l.client === '203.0.113.7')).toBe(true);
  } finally {
    await stop(p);
  }
});

test('every dashboard and session response carries the security headers, errors included', async () => {
  const p = await pod(undefined);
  try {
    const token = await ownerToken(p);
    const app = request(p.relay.app);
    const signedIn = await signIn(p, token, {});
    const cookie = (signedIn.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    for (const res of [
      signedIn,
      await app.get('/dashboard'),
      await app.get('/dashboard/api/session'),
      await app.get('/dashboard/api/session').set('Cookie', cookie),
      await app.post('/dashboard/api/session').send({ token: 'wrong' }),
      await app.put('/dashboard/api/session'),
      await app.delete('/dashboard/api/session').set('Cookie', cookie),
      await app.get('/dashboard/nowhere'),
    ]) {
      expectSecurityHeaders(res);
    }
  } finally {
    await stop(p);
  }
});
