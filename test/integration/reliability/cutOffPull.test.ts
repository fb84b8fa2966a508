/**
 * A pull whose answer is cut off: a client that stops reading a large answer and then
 * leaves gets nothing leased. Its leases go back at once, their delivery not counted
 * (docs/guarantees.md), instead of waiting out the visibility timeout.
 */
import { execFile } from 'node:child_process';
import { eventually } from '../../helpers/app';
import { path, type PulledMessage } from '../../helpers/relayClient';
import { useRelay } from '../../helpers/useRelay';

jest.setTimeout(60_000);

const rq = useRelay({ listen: true, account: 'acme' });
const BODY = 'x'.repeat(64_000);
const COUNT = 100;

beforeEach(async () => {
  await rq.app.relay.store.accounts.setPlan('acme', 'paid');
  for (let i = 0; i < COUNT; i += 4) {
    await rq.client.batchOk('big', {
      messages: [0, 1, 2, 3].map((j) => ({ body: `${i + j}:${BODY}` })),
    });
  }
});

/**
 * Sends a pull from a client with a 4 KB receive buffer that never reads its answer (the
 * server's write stalls whatever the machine's TCP buffer sizes), then leaves. Python's
 * socket sets SO_RCVBUF before connecting, which node:net cannot.
 */
async function pullAndLeave(visibilityMs: number): Promise<void> {
  const body = JSON.stringify({ batch_size: COUNT, visibility_timeout_ms: visibilityMs });
  const request =
    `POST ${path('big', '/pull')} HTTP/1.1\r\nHost: x\r\nAuthorization: ${rq.auth}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const script = [
    'import socket, sys, time',
    's = socket.socket()',
    's.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)',
    `s.connect(('127.0.0.1', ${rq.app.port}))`,
    's.sendall(sys.stdin.buffer.read())',
    'first = s.recv(64)', // the answer has begun: all 100 are leased
    'time.sleep(0.5)', // the rest stalls on the full buffers
    'print(first.split(b"\\r\\n")[0].decode())',
    's.close()',
  ].join('\n');
  const { stdout } = await run('python3', ['-c', script], request);
  expect(stdout.trim()).toBe('HTTP/1.1 200 OK');
}

function run(cmd: string, args: string[], input: string): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, (err, stdout) => (err ? reject(err) : resolve({ stdout })));
    child.stdin!.end(input);
  });
}

test('a client that leaves while a 6 MB pull answer is being written gives its 100 leases back, not counted', async () => {
  await pullAndLeave(600_000);
  // the release is one script call: the first pull that finds any finds them all
  let pulled: PulledMessage[] = [];
  await eventually(async () => {
    pulled = (await rq.client.pullOk('big', { batch_size: COUNT })).messages;
    return pulled.length > 0;
  });
  expect(pulled).toHaveLength(COUNT);
  // every one back, in send order, its first delivery still the first
  expect(pulled.map((m) => Number(String(m.body).split(':')[0]))).toEqual(
    Array.from({ length: COUNT }, (_, i) => i),
  );
  expect(new Set(pulled.map((m) => m.attempts))).toEqual(new Set([1]));
});

test('an answer written in full keeps its leases (a normal close gives nothing back)', async () => {
  const first = await rq.client.pullOk('big', { batch_size: 10 });
  expect(first.messages).toHaveLength(10);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const next = await rq.client.pullOk('big', { batch_size: COUNT });
  expect(next.messages).toHaveLength(COUNT - 10);
  expect((await rq.client.pullOk('big', { batch_size: COUNT })).messages).toHaveLength(0);
});
