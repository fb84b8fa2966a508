/** Reading what the client commands are given: bodies (argument, @file, stdin) and flag values. */
import { readFileSync } from 'node:fs';
import type { ContentType } from '../types.js';

/** A mistake in the command line itself: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) {
    throw new UsageError('no message given: pass it as an argument, as @file, or on stdin');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The raw input of `send`: the argument, the file after `@`, or stdin for `-` or none. */
export async function readInput(arg: string | undefined): Promise<Buffer> {
  if (arg === undefined || arg === '-') return readStdin();
  if (arg.startsWith('@')) {
    try {
      return readFileSync(arg.slice(1));
    } catch (err) {
      throw new UsageError(
        `cannot read ${arg.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
  }
  return Buffer.from(arg, 'utf8');
}

/** Turns raw input into a body for the content type: JSON parsed, text as is, bytes base64-encoded. */
export function toBody(raw: Buffer, contentType: ContentType, where: string): unknown {
  switch (contentType) {
    case 'json': {
      const text = raw.toString('utf8').trim();
      try {
        return JSON.parse(text);
      } catch {
        throw new UsageError(
          `${where} is not valid JSON (use --content-type text to send plain text): ${text.slice(0, 60)}`,
        );
      }
    }
    case 'text':
      return raw.toString('utf8');
    case 'bytes':
      return raw.toString('base64');
    case 'v8':
      return raw.toString('utf8').trim();
  }
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function parseMetadata(pairs: string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--metadata takes key=value, not "${pair}"`);
    metadata[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return metadata;
}

export function integerFlag(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${name} must be an integer of at least ${min}, not "${value}"`);
  return n;
}

export function numberFlag(value: string, name: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`${name} must be a number of at least 0, not "${value}"`);
  return n;
}

/** A JSON argument (e.g. a setting's value): parsed, or a usage error naming the flag. */
export function jsonFlag(value: string, name: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(
      `${name} must be JSON (quote strings: '"text"'), not ${value.slice(0, 60)}`,
    );
  }
}
