/**
 * /healthz (alive) and /readyz (Redis reachable, scripts loaded, not shutting
 * down): the envelope, no auth, 200 or 503.
 */
import { eventually } from '../../helpers/app';
import { startSingleRedis } from '../../helpers/redis';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ redis: startSingleRedis, flush: false });

const ok = (status: string) => ({ success: true, errors: [], messages: [], result: { status } });
const unavailable = (status: string, message: string) => ({
  success: false,
  errors: [{ code: 503, message }],
  messages: [],
  result: { status },
});

test('/healthz answers 200 without auth', async () => {
  const res = await rq.app.http.get('/healthz');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual(ok('ok'));
});

test('/readyz answers 200 when Redis is reachable and the scripts are loaded', async () => {
  const res = await rq.app.http.get('/readyz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual(ok('ready'));
});

test('/healthz and /readyz take only GET', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const res = await rq.app.http.post(path).send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body).toEqual({
      success: false,
      errors: [{ code: 405, message: 'method POST is not allowed here; use GET' }],
      messages: [],
      result: null,
    });
  }
});

test('/readyz answers 503 while Redis is down, /healthz stays 200, and both recover', async () => {
  await rq.redis.pause();
  try {
    const started = Date.now();
    const res = await rq.app.http.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(unavailable('redis_unavailable', 'Redis is unreachable'));
    // cheap: no long wait on a dead Redis
    expect(Date.now() - started).toBeLessThan(5000);
    const live = await rq.app.http.get('/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual(ok('ok'));
  } finally {
    await rq.redis.resume();
  }
  await eventually(async () => (await rq.app.http.get('/readyz')).status === 200, 15_000, 100);
});

test('/readyz answers 503 once shutdown begins; /healthz stays 200', async () => {
  rq.app.relay.beginShutdown();
  const res = await rq.app.http.get('/readyz');
  expect(res.status).toBe(503);
  expect(res.body).toEqual(unavailable('shutting_down', 'the server is shutting down'));
  const live = await rq.app.http.get('/healthz');
  expect(live.status).toBe(200);
});
