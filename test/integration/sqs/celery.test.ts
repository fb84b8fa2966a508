/**
 * Celery on relayq, as a Debian 12 user runs it: python3-celery 5.2 with
 * kombu 5.2's SQS transport (botocore 1.29: the query protocol; pycurl for its
 * long polls), `broker_url = "sqs://<key>:<secret>@127.0.0.1:<port>"` and no
 * other SQS setting. A producer sends 200 tasks, a task that retries with a
 * countdown and an ETA task; a solo worker runs them. Each run leaves a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually, sleep } from '../../helpers/app';
import { pythonHas, runPython, startPython } from './python';
import { sqsAccount, useSqsPods } from './support';

const pods = useSqsPods();
const testIfCelery = pythonHas('celery', 'kombu', 'boto3', 'pycurl') ? test : test.skip;
const APP_DIR = path.join(__dirname, 'python');
const TASKS = 200;

/** How many files each run name left (`record-7.<uuid>` counts for `record-7`). */
function runs(dir: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of fs.readdirSync(dir)) {
    const name = file.slice(0, file.lastIndexOf('.'));
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

testIfCelery(
  'Celery 5.2 runs 200 tasks exactly once, a retry with countdown and an ETA task',
  async () => {
    const { keys, relay } = await sqsAccount(pods, 'celery', { plan: 'paid' });
    const runsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relayq-celery-'));
    const port = new URL(pods.a.baseUrl).port;
    const env = {
      BROKER_URL: `sqs://${encodeURIComponent(keys.accessKeyId)}:${encodeURIComponent(keys.secretAccessKey)}@127.0.0.1:${port}`,
      RUNS_DIR: runsDir,
      PYTHONPATH: APP_DIR,
    };
    const worker = startPython(
      [
        '-m',
        'celery',
        '-A',
        'celery_app',
        'worker',
        '-P',
        'solo',
        '--without-gossip',
        '--without-mingle',
        '--without-heartbeat',
        '-l',
        'INFO',
      ],
      env,
      APP_DIR,
    );
    let log = '';
    worker.stdout.on('data', (d: Buffer) => (log += d.toString()));
    worker.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => worker.on('close', resolve));
    try {
      const sent = await runPython(['celery_send.py', String(TASKS)], env, 60_000, APP_DIR);
      expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: '' });
      const sentAt = Number(sent.stdout.trim());

      // every task ran and was acknowledged (deleted): the queue is empty
      await eventually(
        async () => {
          const counts = runs(runsDir);
          if (counts.size < TASKS + 3 || counts.get('flaky-done') !== 1) return false;
          const channel = (await relay.channel('celery')).body.result;
          return channel.queued === 0 && channel.in_flight === 0 && channel.delayed === 0;
        },
        50_000,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; worker log:\n${log.slice(-3000)}`);
      });
      // nothing runs a second time
      await sleep(1000);
      const counts = runs(runsDir);
      for (let n = 0; n < TASKS; n++) expect([n, counts.get(`record-${n}`)]).toEqual([n, 1]);
      expect(counts.get('flaky-try')).toBe(3);
      expect(counts.get('flaky-done')).toBe(1);
      expect(counts.get('eta')).toBe(1);
      expect(counts.size).toBe(TASKS + 3);
      // the ETA task ran no earlier than its ETA (3 s after it was sent)
      const etaFile = fs.readdirSync(runsDir).find((f) => f.startsWith('eta.'))!;
      const ranAt = Number(fs.readFileSync(path.join(runsDir, etaFile), 'utf8'));
      expect(ranAt).toBeGreaterThanOrEqual(sentAt + 3 - 0.05);
      expect(log).not.toMatch(/Traceback|ERROR/);
    } finally {
      // a warm shutdown; a worker that has not stopped in 10 s is killed
      const kill = setTimeout(() => worker.kill('SIGKILL'), 10_000);
      worker.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
      fs.rmSync(runsDir, { recursive: true, force: true });
    }
  },
  90_000,
);
