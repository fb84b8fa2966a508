/**
 * Zero loss under kill -9: the real service with its embedded redis-server
 * (appendfsync always), both killed -9 in the middle of concurrent sends and
 * acks, restarted on the same data directory. The harness is the one of
 * `npm run bench:durability` (bench/durability.ts), here with 2,000 messages.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runDurability } from '../../../bench/durability';

jest.setTimeout(180_000);

beforeAll(() => {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: path.resolve(__dirname, '..', '..', '..'),
    stdio: 'inherit',
  });
});

test('every send answered 200 survives kill -9 of the service and its Redis; acks stay acked', async () => {
  const lines: string[] = [];
  const report = await runDurability({
    messages: 2000,
    concurrency: 16,
    killAt: 0.5,
    log: (line) => lines.push(line),
  });
  console.log([...lines, JSON.stringify({ ...report, lost: report.lost.length })].join('\n'));
  expect(report.sentOk).toBeGreaterThanOrEqual(1000);
  expect(report.ackedBeforeKill).toBeGreaterThan(0);
  expect(report.lost).toEqual([]);
  expect(report.ackedRedelivered).toEqual([]);
  expect(report.phantom).toBe(0);
  // Every message sent with a 200 and not acked came back exactly once after the restart.
  expect(report.duplicated).toBe(0);
  expect(report.pulledAfterRestart).toBeGreaterThanOrEqual(
    report.sentOk - report.ackedBeforeKill - report.ackUnknown,
  );
});
