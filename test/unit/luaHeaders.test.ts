/**
 * Every Lua script opens with its header (purpose, KEYS, ARGV, Returns, Errors); the registry
 * takes its KEYS count from there; and every script has a typed module that takes the KEYS
 * groups and ARGV names, in order, that the header says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SCRIPT_NAMES, scriptKeyCounts } from '../../src/store/scripts';
import { ALL_SCRIPTS } from '../../src/store/scripts/all';
import { KEY_GROUPS, type KeyGroup } from '../../src/store/scripts/define';
import { headerKeys, headerOf } from '../../src/store/scripts/header';

const dir = path.resolve(__dirname, '../../lua');
const scripts = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.lua'))
  .map((f) => f.replace(/\.lua$/, ''));

function header(name: string): string {
  return headerOf(name, fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8'));
}

test('every script in lua/ is registered, and every registered script exists', () => {
  expect(scripts.sort()).toEqual([...SCRIPT_NAMES].sort());
});

test.each(scripts)('%s.lua: purpose, KEYS, ARGV, Returns, Errors; KEYS count matches', (name) => {
  const h = header(name);
  expect(h.startsWith(`${name}: `)).toBe(true);
  for (const section of ['KEYS', 'ARGV', 'Returns:', 'Errors:']) {
    expect(h.split('\n').some((line) => line.startsWith(section))).toBe(true);
  }
  let highest = 0;
  for (const line of h.split('\n')) {
    // an optional group (absent when the call has none) is not in the fixed count
    if (/absent when/.test(line)) continue;
    for (const m of line.matchAll(/KEYS\[(\d+)(?:\.\.(\d+))?\]/g)) {
      highest = Math.max(highest, Number(m[2] ?? m[1]));
    }
  }
  // the registry reads the count from the header, as this test does
  expect(headerKeys(h).fixed).toBe(highest);
  expect(scriptKeyCounts()[name as (typeof SCRIPT_NAMES)[number]].fixed).toBe(highest);
});

/** The typed modules (src/store/scripts/*.ts): one spec per script. */
const typed = ALL_SCRIPTS;

test('every script has exactly one typed module spec', () => {
  expect(typed.map((spec) => spec.name).sort()).toEqual([...SCRIPT_NAMES].sort());
});

/** The typed modules whose script checks a caller (the others are the owner's operations). */
const withCaller = typed.filter((spec) => spec.keys.includes('caller'));

const GROUP_OF_LABEL: Record<string, KeyGroup> = {
  ...(Object.fromEntries(Object.keys(KEY_GROUPS).map((g) => [g, g])) as Record<string, KeyGroup>),
  'dead-letter': 'deadLetter',
};

test.each(typed.map((spec) => [spec.name, spec] as const))(
  '%s.lua: its typed module names the header KEYS groups and ARGV, in order',
  (name, spec) => {
    const lines = header(name).split('\n');
    const groups: KeyGroup[] = [];
    let next = 1;
    for (const line of lines.filter((l) => l.startsWith('KEYS['))) {
      // every KEYS line names its group: KEYS[a..b] <group> keys: <names>; KEYS[a..] repeats
      const m = /^KEYS\[(\d+)\.\.(\d*)\]\s+([a-z-]+) keys: ([a-z_, ]+)/.exec(line);
      expect(m).not.toBeNull();
      if (!m) continue;
      if (m[2] === '') {
        expect(Number(m[1])).toBe(next);
        expect(m[4].split(',').map((n) => n.trim().split(' ')[0])).toEqual([
          ...KEY_GROUPS[GROUP_OF_LABEL[m[3]]],
        ]);
        groups.push(GROUP_OF_LABEL[m[3]]);
        continue;
      }
      const group = GROUP_OF_LABEL[m[3]];
      expect(group).toBeDefined();
      expect(Number(m[1])).toBe(next);
      const names = m[4].split(',').map((n) => n.trim().split(' ')[0]);
      expect(names).toEqual([...KEY_GROUPS[group]]);
      expect(Number(m[2]) - Number(m[1]) + 1).toBe(names.length);
      next = Number(m[2]) + 1;
      groups.push(group);
    }
    expect(groups).toEqual([...spec.keys]);
    // ARGV[n] name: ..., or a group of the caller's: ARGV[1..3] caller: token_id, proof, rate
    const argv: string[] = [];
    for (const line of lines) {
      const group = /^ARGV\[(\d+)\.\.(\d+)\] caller: ([a-z_, ]+)/.exec(line);
      const one = /^ARGV\[(\d+)\] ([a-z_]+):/.exec(line);
      if (group) {
        expect(Number(group[1])).toBe(argv.length + 1);
        argv.push(...group[3].split(',').map((n) => n.trim()));
        expect(argv.length).toBe(Number(group[2]));
      } else if (one) {
        expect(Number(one[1])).toBe(argv.length + 1);
        argv.push(one[2]);
      }
    }
    expect(argv).toEqual([...spec.argv]);
    // the registry's KEYS count (read from the header) is what the groups add up to, but the
    // optional and repeated ones
    const optional = lines
      .filter((l) => /absent when/.test(l) || /^KEYS\[\d+\.\.\]/.test(l))
      .map((l) => GROUP_OF_LABEL[/^KEYS\[[\d.]+\]\s+([a-z-]+) keys:/.exec(l)![1]]);
    const fixed = spec.keys
      .filter((g) => !optional.includes(g))
      .reduce((n, g) => n + KEY_GROUPS[g].length, 0);
    expect(scriptKeyCounts()[spec.name].fixed).toBe(fixed);
    expect(scriptKeyCounts()[spec.name].variable).toBe(optional.length > 0);
  },
);

test('a script that takes a caller starts its ARGV with the caller and checks it', () => {
  for (const spec of withCaller) {
    expect(spec.argv.slice(0, 3)).toEqual(['token_id', 'proof', 'rate']);
    expect(fs.readFileSync(path.join(dir, `${spec.name}.lua`), 'utf8')).toMatch(
      /local caller = check_caller\(k, KEYS\[\d+\], KEYS\[\d+\],[^\n]*\)\nif caller\.err then return caller end/,
    );
  }
});
