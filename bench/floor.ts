/**
 * The W2 floor and the W4 peer (issue 18), run as its own process like relayq
 * (`node dist/bench/floor.js`, env PORT and REDIS_PORT):
 * - `POST /v1/relay/channels/<channel>/messages`: reads the body, `JSON.parse`s it
 *   and calls relayq's send script once through ioredis (bench/scriptCalls.ts), for
 *   the account named after the first space of the Authorization header. No
 *   authentication, validation, rate limit or logging: what any HTTP front of the
 *   send script costs at least.
 * - `GET .../messages/subscribe` (WebSocket): a bare `ws` subscriber; after each
 *   send's response, the channel's subscribers get relayq's `new_message` frame
 *   at once, with nothing in between.
 */
import http from 'node:http';
import Redis from 'ioredis';
import WebSocket, { WebSocketServer } from 'ws';
import type { RedisClient } from '../src/store/redis';
import { benchScripts, sendScriptCall } from './scriptCalls';

const PATH = /^\/v1\/relay\/channels\/([^/]+)\/messages(\/subscribe)?$/;

const redis = new Redis(Number(process.env.REDIS_PORT), '127.0.0.1');
const client = redis as unknown as RedisClient;
const scripts = benchScripts(client);
const subscribers = new Map<string, Set<WebSocket>>();
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

function broadcast(channel: string): void {
  const sockets = subscribers.get(channel);
  if (!sockets) return;
  const frame = JSON.stringify({ type: 'new_message', channelId: channel });
  for (const ws of sockets) ws.send(frame);
}

function answer(res: http.ServerResponse, status: number, json: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}

const server = http.createServer((req, res) => {
  const match = PATH.exec(req.url ?? '');
  if (req.method !== 'POST' || !match || match[2]) {
    answer(res, 404, '{"success":false}');
    return;
  }
  const channel = match[1];
  const account = (req.headers.authorization ?? '').split(' ')[1] ?? '';
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let bodyJson: string;
    try {
      bodyJson = JSON.stringify(
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { body: unknown }).body,
      );
    } catch (err) {
      answer(res, 400, JSON.stringify({ success: false, error: (err as Error).message }));
      return;
    }
    sendScriptCall(scripts, client, account, channel, [bodyJson]).then(
      (reply) => {
        const [[id]] = reply as [string[]];
        answer(res, 201, `{"success":true,"result":{"id":"${id}"}}`);
        broadcast(channel);
      },
      (err: Error) => answer(res, 500, JSON.stringify({ success: false, error: err.message })),
    );
  });
});

server.on('upgrade', (req, socket, head) => {
  const match = PATH.exec(req.url ?? '');
  if (!match || !match[2]) {
    socket.destroy();
    return;
  }
  const channel = match[1];
  wss.handleUpgrade(req, socket, head, (ws) => {
    let set = subscribers.get(channel);
    if (!set) subscribers.set(channel, (set = new Set()));
    set.add(ws);
    ws.on('close', () => set.delete(ws));
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ type: 'subscribed', channels: [channel] }));
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  for (const ws of wss.clients) ws.terminate();
  redis.disconnect();
  process.exit(0);
});
