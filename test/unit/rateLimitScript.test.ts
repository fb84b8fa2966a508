import fs from 'node:fs';
import { SCRIPT_KEY_COUNTS, scriptPath } from '../../src/store/scripts';

test('rate_limit.lua has the header sections and the KEYS count of scripts.ts', () => {
  const source = fs.readFileSync(scriptPath('rate_limit'), 'utf8');
  const header = source.slice(0, source.indexOf(']]'));
  for (const section of ['rate_limit:', 'KEYS[2]', 'ARGV[4]', 'Returns:', 'Errors:']) {
    expect(header).toContain(section);
  }
  expect(header).not.toContain('KEYS[3]');
  expect(SCRIPT_KEY_COUNTS.rate_limit).toBe(2);
  expect(source).not.toMatch(/\.\.\s*['"]:/); // builds no key names
});
