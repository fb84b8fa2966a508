/** Every Lua script opens with its header (STYLE.md), and its KEYS match SCRIPT_KEY_COUNTS. */
import fs from 'node:fs';
import path from 'node:path';
import { SCRIPT_KEY_COUNTS } from '../../src/store/scripts';

const dir = path.resolve(__dirname, '../../lua');
const scripts = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.lua'))
  .map((f) => f.replace(/\.lua$/, ''));

function header(name: string): string {
  const text = fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8');
  const match = /^--\[\[\n([\s\S]*?)\n\]\]/.exec(text);
  if (!match) throw new Error(`${name}.lua does not open with a --[[ ... ]] header`);
  return match[1];
}

test('every script in lua/ is registered, and every registered script exists', () => {
  expect(scripts.sort()).toEqual(Object.keys(SCRIPT_KEY_COUNTS).sort());
});

test.each(scripts)('%s.lua: purpose, KEYS, ARGV, Returns, Errors; KEYS count matches', (name) => {
  const h = header(name);
  expect(h.startsWith(`${name}: `)).toBe(true);
  for (const section of ['KEYS', 'ARGV', 'Returns:', 'Errors:']) {
    expect(h.split('\n').some((line) => line.startsWith(section))).toBe(true);
  }
  let highest = 0;
  for (const m of h.matchAll(/KEYS\[(\d+)(?:\.\.(\d+))?\]/g)) {
    highest = Math.max(highest, Number(m[2] ?? m[1]));
  }
  expect(highest).toBe(SCRIPT_KEY_COUNTS[name as keyof typeof SCRIPT_KEY_COUNTS]);
});
