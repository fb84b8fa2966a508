/**
 * Exact errors for compressed bodies, none of which changes anything: an
 * unknown Content-Encoding (415), a body that does not decompress (400), and a
 * compression bomb, stopped at the size limit while inflating (413).
 */
import zlib from 'node:zlib';
import { accountWithToken, type TestApp } from '../../helpers/app';
import { useRelay } from '../../helpers/useRelay';

const rq = useRelay({ flush: false });
let app: TestApp;
let auth: string;

beforeAll(async () => {
  app = rq.app;
  auth = (await accountWithToken(app, 'acme')).auth;
});

const SEND = '/v1/relay/channels/orders/messages';
const envelope = (code: number, message: string) => ({
  success: false,
  errors: [{ code, message }],
  messages: [],
  result: null,
});

function send(encoding: string, body: Buffer) {
  return (
    app.http
      .post(SEND)
      .set('Authorization', auth)
      // (not application/json: the test client would serialise the Buffer as JSON)
      .set('Content-Type', 'application/octet-stream')
      .set('Content-Encoding', encoding)
      .send(body)
  );
}

async function stored(): Promise<number> {
  const res = await app.http.get('/v1/relay/channels').set('Authorization', auth);
  return res.body.result.channels.reduce((n: number, c: { queued: number }) => n + c.queued, 0);
}

/** gzip of `bytes` zero bytes, compressed as a stream: the zeros are never all in memory. */
function gzipOfZeros(bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gzip = zlib.createGzip({ level: 9 });
    const out: Buffer[] = [];
    gzip.on('data', (c: Buffer) => out.push(c));
    gzip.on('end', () => resolve(Buffer.concat(out)));
    gzip.on('error', reject);
    const chunk = Buffer.alloc(1 << 20);
    let left = bytes;
    const pump = () => {
      while (left > 0) {
        left -= chunk.length;
        if (!gzip.write(chunk)) return void gzip.once('drain', pump);
      }
      gzip.end();
    };
    pump();
  });
}

const valid = Buffer.from(JSON.stringify({ body: 'hello' }));

test('a valid gzip, deflate and br body is accepted', async () => {
  for (const [encoding, body] of [
    ['gzip', zlib.gzipSync(valid)],
    ['deflate', zlib.deflateSync(valid)],
    ['br', zlib.brotliCompressSync(valid)],
  ] as const) {
    expect((await send(encoding, body)).status).toBe(200);
  }
  expect(await stored()).toBe(3);
});

test.each([
  ['gzip', Buffer.from('this is not gzip')],
  ['gzip', zlib.gzipSync(valid).subarray(0, 12)],
  ['deflate', Buffer.from('nor deflate')],
  ['br', Buffer.from('and certainly not brotli at all')],
])('a body that is not valid %s data is a 400 that names it', async (encoding, body) => {
  const before = await stored();
  const res = await send(encoding, body);
  expect(res.status).toBe(400);
  expect(res.body).toEqual(envelope(400, `request body is not valid ${encoding} data`));
  expect(await stored()).toBe(before);
});

test('an unknown Content-Encoding is a 415 naming it', async () => {
  const before = await stored();
  const res = await send('compress', valid);
  expect(res.status).toBe(415);
  expect(res.body).toEqual(
    envelope(415, 'Content-Encoding "compress" is not supported; use identity, gzip, deflate, br'),
  );
  expect(await stored()).toBe(before);
});

test('a 1 GB gzip bomb is a 413, stopped while inflating', async () => {
  const bomb = await gzipOfZeros(1 << 30);
  expect(bomb.length).toBeLessThan(2 << 20);
  const before = await stored();
  const rss = process.memoryUsage().rss;
  const res = await send('gzip', bomb);
  expect(res.status).toBe(413);
  expect(res.body).toEqual(
    envelope(413, 'request body is over the 1048576-byte limit once decompressed'),
  );
  // Inflating it all would have taken a gigabyte; reading stopped at the limit.
  expect(process.memoryUsage().rss - rss).toBeLessThan(256 << 20);
  expect(await stored()).toBe(before);
}, 60_000);
