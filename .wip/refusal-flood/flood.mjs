// A flooding client in its own process (a hostile tenant's traffic must not share the
// measured pod's event loop with the test): POSTs the given requests round-robin over
// `connections` keep-alive connections (at most `ratePerSecond` a second, when given) until it receives "stop" on stdin, then prints
// the statuses it got as JSON. Usage: node flood.mjs <json: {url, connections, requests}>
/* global process, Buffer, setTimeout */
import http from 'node:http';

const { url, connections, requests, ratePerSecond } = JSON.parse(process.argv[2]);
const startedAt = Date.now();
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const statuses = {};
let stopping = false;
let next = 0;

/** At most ratePerSecond request starts (over all connections), when given. */
function paced(i) {
  if (!ratePerSecond) return Promise.resolve();
  const wait = startedAt + (i * 1000) / ratePerSecond - Date.now();
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
}

async function one() {
  if (stopping) return;
  const i = next++;
  const r = requests[i % requests.length];
  await paced(i);
  if (stopping) return;
  await new Promise((resolve) => {
    const req = http.request(
      `${url}${r.path}`,
      {
        method: 'POST',
        agent,
        headers: { ...r.headers, 'content-length': Buffer.byteLength(r.body) },
      },
      (res) => {
        statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', () => {
      statuses.error = (statuses.error || 0) + 1;
      resolve();
    });
    req.end(r.body);
  });
  return one();
}

const loops = Array.from({ length: connections }, one);
process.stdout.write('started\n');
process.stdin.on('data', (d) => {
  if (String(d).includes('stop')) stopping = true;
});
Promise.all(loops).then(() => {
  process.stdout.write(`${JSON.stringify(statuses)}\n`);
  agent.destroy();
  process.exit(0);
});
