/** Debian's Python SQS clients (python3-boto3, python3-celery: .ci/run installs them), for the tests. */
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** Debian's own interpreter, whose dist-packages hold botocore 1.29 (the query protocol). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** Whether Debian's Python can import these modules. */
export function pythonHas(...modules: string[]): boolean {
  const check = spawnSync(DEBIAN_PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], {
    stdio: 'ignore',
  });
  return check.status === 0;
}

export interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts Debian's Python with only Debian's packages (no user site-packages) and `env`. */
export function startPython(
  args: string[],
  env: Record<string, string>,
  cwd = process.cwd(),
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(DEBIAN_PYTHON, ['-s', ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      // no __pycache__ beside the test's scripts
      PYTHONDONTWRITEBYTECODE: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a Python script to its end (killed after timeoutMs). */
export function runPython(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  cwd?: string,
): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = startPython(args, env, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
