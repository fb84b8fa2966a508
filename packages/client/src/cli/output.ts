/**
 * How commands print: with --json (or when stdout is not a terminal) one JSON
 * document per command, or one JSON object per line for streams (tail, send
 * --lines); readable text on a terminal. Notes and progress go to stderr, on
 * a terminal only, so they never mix with what a script reads.
 */
export interface OutputFlags {
  json?: boolean;
}

export class Output {
  readonly json: boolean;

  constructor(flags: OutputFlags) {
    this.json = Boolean(flags.json) || !process.stdout.isTTY;
  }

  /** The command's answer: `value` as JSON, or `text()` on a terminal. */
  result(value: unknown, text: () => string): void {
    process.stdout.write(`${this.json ? JSON.stringify(value) : text()}\n`);
  }

  /** One item of a stream: a JSON line, or text. */
  item(value: unknown, text: () => string): void {
    process.stdout.write(`${this.json ? JSON.stringify(value) : text()}\n`);
  }

  /** A note for a person watching (stderr, terminal only). */
  note(text: string): void {
    if (!this.json && process.stderr.isTTY) process.stderr.write(`${text}\n`);
  }

  /** A progress line that rewrites itself (stderr, terminal only); `done` ends it. */
  progress(text: string, done = false): void {
    if (this.json || !process.stderr.isTTY) return;
    process.stderr.write(`\r${text}\u001b[K${done ? '\n' : ''}`);
  }
}

/** Rows as aligned columns, the first row a header. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const isoTime = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '-' : new Date(ms).toISOString();
