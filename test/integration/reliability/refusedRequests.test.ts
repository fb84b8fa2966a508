/**
 * What Node refuses before any route is answered in the entrance's shape and logged: headers
 * over the limit (431), a request without Host (400), a malformed request (400). On /sqs and
 * SQS requests at the root path the answer is SQS's error (JSON or XML, by protocol); a Host
 * sent after a thousand other headers still counts.
 */
import type http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger';
import { createApiServer } from '../../../src/web/nodeServer';
import { useRelay } from '../../helpers/useRelay';

let server: http.Server;
let port: number;
let logged = '';
// declared first, so that the server closes before useRelay() closes the pod
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
const rq = useRelay({ account: 'acme' });
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  server = createApiServer(
    rq.app.relay.app,
    {},
    { shapes: rq.app.relay.refusalShapes, log: createLogger('info', sink) },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

/** Sends raw bytes; resolves with the status line's code, the headers and the body text. */
function raw(bytes: string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>(
    (resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      const giveUp = setTimeout(() => socket.destroy(new Error('no close')), 10_000);
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => {
        clearTimeout(giveUp);
        const at = text.indexOf('\r\n\r\n');
        const lines = text.slice(0, at).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        resolve({ status: Number(lines[0].split(' ')[1]), headers, body: text.slice(at + 4) });
      });
      socket.end(bytes);
    },
  );
}

const bigHeader = `X-Big: ${'a'.repeat(20_000)}\r\n`;

test('headers over the limit: 431 in the envelope on the relay API', async () => {
  const res = await raw(
    `POST /v1/relay/channels/c/messages HTTP/1.1\r\nHost: x\r\n${bigHeader}\r\n`,
  );
  expect(res.status).toBe(431);
  expect(res.headers.connection).toBe('close');
  expect(JSON.parse(res.body)).toEqual({
    success: false,
    errors: [{ code: 431, message: 'request headers are over the 16384-byte limit' }],
    messages: [],
    result: null,
  });
});

test('headers over the limit on /sqs: SQS JSON error; a form post at / gets the XML one', async () => {
  const json = await raw(
    `POST /sqs HTTP/1.1\r\nHost: x\r\nX-Amz-Target: AmazonSQS.SendMessage\r\nContent-Type: application/x-amz-json-1.0\r\n${bigHeader}\r\n`,
  );
  expect(json.status).toBe(431);
  expect(json.headers['x-amzn-query-error']).toBe('RequestHeaderSectionTooLarge;Sender');
  expect(JSON.parse(json.body)).toEqual({
    __type: 'com.amazonaws.sqs#RequestHeaderSectionTooLarge',
    message: 'request headers are over the 16384-byte limit',
  });
  const xml = await raw(
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n${bigHeader}\r\n`,
  );
  expect(xml.status).toBe(431);
  expect(xml.body).toContain('<Code>RequestHeaderSectionTooLarge</Code>');
  expect(xml.body).toContain('<ErrorResponse');
});

test('a Host sent after a thousand other headers counts; no Host at all is a 400 in shape', async () => {
  const many = Array.from({ length: 1100 }, (_, i) => `X-H${i}: ${i}\r\n`).join('');
  const late = await raw(`GET /healthz HTTP/1.1\r\n${many}Host: x\r\nConnection: close\r\n\r\n`);
  expect(late.status).toBe(200);
  const none = await raw(`GET /v1/relay/whoami HTTP/1.1\r\nConnection: close\r\n\r\n`);
  expect(none.status).toBe(400);
  expect(JSON.parse(none.body).errors).toEqual([
    { code: 400, message: 'the Host header is missing' },
  ]);
  const sqs = await raw(
    `POST /sqs HTTP/1.1\r\nX-Amz-Target: AmazonSQS.ListQueues\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n\r\n{}`,
  );
  expect(sqs.status).toBe(400);
  expect(JSON.parse(sqs.body).__type).toBe('com.amazonaws.sqs#InvalidParameterValue');
});

test('a malformed request is a 400 envelope; every refusal is logged', async () => {
  const res = await raw('BLAH\r\n\r\n');
  expect(res.status).toBe(400);
  expect(JSON.parse(res.body).errors).toEqual([{ code: 400, message: 'malformed HTTP request' }]);
  const lines = logged
    .split('\n')
    .filter((l) => l.includes('request refused before routing'))
    .map((l) => JSON.parse(l) as { status: number; reason: string });
  expect(lines.map((l) => l.status)).toEqual(expect.arrayContaining([431, 400]));
  expect(logged).not.toContain('a'.repeat(100));
});
