/**
 * What a Lua script's header (its opening `--[[ ... ]]`) says of its KEYS: how many it always
 * takes and whether more may follow. The registry (index.ts) reads the count from here, so it
 * is written once, in the script; test/unit/luaHeaders.test.ts checks the typed modules by it.
 */

export interface HeaderKeys {
  /** the KEYS every call passes */
  fixed: number;
  /** true when a group may be absent or repeats (`absent when`, `KEYS[n..]`): ioredis is then given the count */
  variable: boolean;
}

/** The header's text, between `--[[` and `]]`. */
export function headerOf(name: string, source: string): string {
  const match = /^--\[\[\n([\s\S]*?)\n\]\]/.exec(source);
  if (!match) throw new Error(`${name}.lua does not open with a --[[ ... ]] header`);
  return match[1];
}

/** The fixed KEYS count: the highest KEYS[n] of the lines that are always passed. */
export function headerKeys(header: string): HeaderKeys {
  let fixed = 0;
  let variable = false;
  for (const line of header.split('\n')) {
    if (!line.startsWith('KEYS[')) continue;
    if (/absent when/.test(line) || /^KEYS\[\d+\.\.\]/.test(line)) {
      variable = true;
      continue;
    }
    for (const m of line.matchAll(/KEYS\[(\d+)(?:\.\.(\d+))?\]/g)) {
      fixed = Math.max(fixed, Number(m[2] ?? m[1]));
    }
  }
  return { fixed, variable };
}
