/**
 * Builds the package twice from one source: CommonJS (Node's require, the
 * CLI) into dist/cjs and ES modules (browsers, bundlers, import) into
 * dist/esm, each folder marked with its module type. `--clean` (prepack)
 * empties dist first; without it files are only overwritten, so that tests
 * building while others run the CLI never see it missing.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
if (process.argv.includes('--clean')) {
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
}
for (const [config, type] of [
  ['tsconfig.cjs.json', 'commonjs'],
  ['tsconfig.esm.json', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, config)], { stdio: 'inherit' });
  const out = path.join(root, 'dist', type === 'module' ? 'esm' : 'cjs');
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type })}\n`);
}
fs.chmodSync(path.join(root, 'dist/cjs/cli/main.js'), 0o755);
