/** docs/configuration.md is exactly what the config module's declarations generate. */
import fs from 'node:fs';
import path from 'node:path';
import { configurationReference } from '../../src/config/reference';
import { SETTINGS } from '../../src/config/settings';

const file = path.resolve(__dirname, '../../docs/configuration.md');

test('the committed docs/configuration.md matches the settings (npm run docs:config)', () => {
  expect(fs.readFileSync(file, 'utf8')).toBe(configurationReference());
});

test('every setting has a variable, a type, a default and a description', () => {
  const seen = new Set<string>();
  for (const s of Object.values(SETTINGS)) {
    expect(s.env).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect(seen.has(s.env)).toBe(false);
    seen.add(s.env);
    expect(s.type).not.toBe('');
    expect(s.default).not.toBe('');
    expect(s.description.length).toBeGreaterThan(10);
  }
  for (const name of ['RELAY_SESSION_TTL_SECONDS', 'RELAY_AUTH_CACHE_MS', 'RELAY_METRICS_ACCOUNTS'])
    expect(seen.has(name)).toBe(true);
});

test('each declared default is the value an empty environment gives', () => {
  for (const s of Object.values(SETTINGS)) {
    if (s.type.startsWith('integer')) expect(String(s.parse(undefined))).toBe(s.default);
  }
});
