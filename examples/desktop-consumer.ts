/**
 * A desktop-style consumer: handles the messages of one or more channels
 * while online, catches up on what arrived while offline, and shuts down
 * without losing anything on Ctrl-C.
 *
 *   RELAY_URL=http://localhost:8080 RELAY_TOKEN=rq_... npx ts-node examples/desktop-consumer.ts orders alerts
 *
 * (`npm run build` first: @relayq/client resolves to the built packages/client; or compile
 * with `npx tsc -p tsconfig.json` and run the .js under dist/examples/).
 * An app imports it the same way after `npm install @relayq/client`.
 */
import { RelayClient, RelayError, type PulledMessage } from '@relayq/client';

const url = process.env.RELAY_URL ?? 'http://localhost:8080';
const token = process.env.RELAY_TOKEN;
if (!token) {
  process.stderr.write('set RELAY_TOKEN to a relay API token\n');
  process.exit(2);
}
const channels = process.argv.slice(2);
if (channels.length === 0) channels.push('orders');

const client = new RelayClient({ url, token });
let stopping = false;

async function handle(message: PulledMessage, channel: string): Promise<void> {
  // Your work goes here. Throwing hands the message back (after retryDelaySeconds);
  // after 3 deliveries it goes to the channel's dead-letter channel, if one is set.
  console.log(`[${channel}] ${message.id} attempt ${message.attempts}:`, message.body);
}

const consumer = client.consume(channels, (message, { channel }) => handle(message, channel), {
  concurrency: 4,
  visibilityTimeoutMs: 60_000,
  retryDelaySeconds: 10,
});

consumer.on('connected', () => console.log(`online: consuming ${channels.join(', ')} at ${url}`));
consumer.on('disconnected', () => {
  if (!stopping) console.log('offline: reconnecting...');
});
consumer.on('error', (err: Error, context: { during: string }) => {
  const detail = err instanceof RelayError ? ` (HTTP ${err.status})` : '';
  console.error(`error during ${context.during}: ${err.message}${detail}`);
});

const shutdown = () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping: finishing running handlers and their acks...');
  consumer.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
