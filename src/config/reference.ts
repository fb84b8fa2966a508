/**
 * docs/configuration.md, generated from the settings' own declarations
 * (settings.ts, plans.ts). `npm run docs:config` writes it; a unit
 * test fails when the committed file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PLANS, PLAN_LIMITS } from './plans';
import { SETTINGS } from './settings';

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function configurationReference(): string {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/config/settings.ts and src/config/plans.ts by `npm run docs:config`;',
    '     do not edit by hand (test/unit/configReference.test.ts checks it). -->',
    '',
    'relayq reads its configuration from environment variables at start-up, once.',
    'A value that is not valid stops the start with a message naming the variable;',
    'an unset or empty variable takes its default.',
    '',
    '| variable | type | default | accepted | meaning |',
    '|---|---|---|---|---|',
  ];
  for (const s of Object.values(SETTINGS)) {
    const value = /^[`(]/.test(s.default) ? s.default : `\`${s.default}\``;
    lines.push(
      `| \`${s.env}\` | ${s.type} | ${cell(value)} | ${cell(s.bounds)} | ${cell(s.description)} |`,
    );
  }
  const planNames = Object.keys(DEFAULT_PLANS);
  lines.push(
    '',
    '## Plans',
    '',
    'Every account has a plan; its limits apply to every entrance. `RELAY_PLANS` is a JSON',
    'object of plan name to limits: it changes limits of the plans below field by field',
    '(`{"free":{"max_channels":20}}`) or adds a plan, which must then give every limit.',
    'Each limit is a positive whole number.',
    '',
    `| limit | ${planNames.map((p) => `\`${p}\``).join(' | ')} | meaning |`,
    `|---|${planNames.map(() => '---|').join('')}---|`,
  );
  for (const [limit, meaning] of Object.entries(PLAN_LIMITS)) {
    const values = planNames.map((p) => `${DEFAULT_PLANS[p][limit as keyof typeof PLAN_LIMITS]}`);
    lines.push(`| \`${limit}\` | ${values.join(' | ')} | ${cell(meaning)} |`);
  }
  lines.push('');
  return lines.join('\n');
}

/** docs/configuration.md, from src/config/ (tests) or dist/src/config/ (npm run docs:config). */
export const REFERENCE_PATH = path.resolve(
  __dirname,
  ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..', '..', '..'] : ['..', '..']),
  'docs',
  'configuration.md',
);

if (require.main === module) {
  fs.writeFileSync(REFERENCE_PATH, configurationReference());
  console.log(`wrote ${REFERENCE_PATH}`);
}
