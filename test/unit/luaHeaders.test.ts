/**
 * Every Lua script opens with its header (purpose, KEYS, ARGV, Returns, Errors), and its KEYS
 * match SCRIPT_KEY_COUNTS; a script with a typed module takes the KEYS groups and ARGV names,
 * in order, that it says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SCRIPT_KEY_COUNTS } from '../../src/store/scripts';
import { ackScript } from '../../src/store/scripts/ack';
import { authorizeScript } from '../../src/store/scripts/authorize';
import { channelTagsScript } from '../../src/store/scripts/channelTags';
import { KEY_GROUPS, type AnyScriptSpec, type KeyGroup } from '../../src/store/scripts/define';
import { extendScript } from '../../src/store/scripts/extend';
import { pullScript } from '../../src/store/scripts/pull';
import { sendScript } from '../../src/store/scripts/send';

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
  for (const line of h.split('\n')) {
    // an optional group (absent when the call has none) is not in the fixed count
    if (/absent when/.test(line)) continue;
    for (const m of line.matchAll(/KEYS\[(\d+)(?:\.\.(\d+))?\]/g)) {
      highest = Math.max(highest, Number(m[2] ?? m[1]));
    }
  }
  expect(highest).toBe(SCRIPT_KEY_COUNTS[name as keyof typeof SCRIPT_KEY_COUNTS]);
});

/** The typed modules (src/store/scripts/*.ts): one per script they cover. */
const typed: AnyScriptSpec[] = [
  sendScript,
  pullScript,
  ackScript,
  extendScript,
  authorizeScript,
  channelTagsScript,
];
/** The typed modules whose script checks a caller (the others are the owner's operations). */
const withCaller = typed.filter((spec) => spec.keys.includes('caller'));

const GROUP_OF_LABEL: Record<string, KeyGroup> = {
  account: 'account',
  channel: 'channel',
  caller: 'caller',
  history: 'history',
  'dead-letter': 'deadLetter',
  webhooks: 'webhooks',
  tags: 'tags',
};

test.each(typed.map((spec) => [spec.name, spec] as const))(
  '%s.lua: its typed module names the header KEYS groups and ARGV, in order',
  (name, spec) => {
    const lines = header(name).split('\n');
    const groups: KeyGroup[] = [];
    let next = 1;
    for (const line of lines) {
      const m = /^KEYS\[(\d+)\.\.(\d+)\]\s+([a-z-]+) keys: ([a-z_, ]+)/.exec(line);
      if (!m) continue;
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
    // the fixed KEYS count of the registry leaves out the optional groups
    const fixed = spec.keys
      .filter((g) => g !== 'deadLetter' && g !== 'webhooks')
      .reduce((n, g) => n + KEY_GROUPS[g].length, 0);
    expect(SCRIPT_KEY_COUNTS[spec.name]).toBe(fixed);
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
