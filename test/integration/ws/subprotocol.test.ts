/**
 * A page cannot set Authorization on a WebSocket: it offers its token as the
 * subprotocol `relayq.bearer.<token>` next to `relayq`. The server accepts it
 * like the header, answers with `relayq` (never echoing the token), and
 * refuses a bad one as it refuses a bad header.
 */
import WebSocket from 'ws';
import { useRelay } from '../../helpers/useRelay';
import { closeClients, refusedUpgrade, wsUrl } from '../../helpers/ws';

const rq = useRelay({ listen: true, account: 'acme' });
afterEach(() => closeClients());

const path = '/v1/relay/channels/orders/messages/subscribe';

test('the token as a subprotocol opens the subscription; the server picks relayq', async () => {
  const ws = new WebSocket(wsUrl(rq.app, path), ['relayq', `relayq.bearer.${rq.token}`]);
  try {
    const first = await new Promise<{ type: string; channelId?: string }>((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(String(data))));
      ws.once('error', reject);
    });
    expect(first).toMatchObject({ type: 'subscribed', channelId: 'orders' });
    expect(ws.protocol).toBe('relayq');
  } finally {
    ws.terminate();
  }
});

test('a wrong token in the subprotocol is a 401 envelope, before any upgrade', async () => {
  const res = await refusedUpgrade(rq.app, path, {
    'Sec-WebSocket-Protocol': `relayq, relayq.bearer.${rq.token}x`,
  });
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ success: false, result: null });
  expect(res.headers.upgrade).toBeUndefined();
});
