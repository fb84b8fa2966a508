/**
 * Runs once before any test: builds the @relayq/client package. Tests import
 * it from source (see moduleNameMapper), but the tests that compile and run the
 * server or the CLI as processes (ops/shutdown, reliability/durability, the CLI
 * suites) load the package's dist/ like an installed app would; on a fresh
 * clone nothing else has built it.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function buildClientPackage() {
  const root = path.resolve(__dirname, '../..');
  execFileSync(process.execPath, [path.join(root, 'packages/client/scripts/build.cjs')], {
    cwd: path.join(root, 'packages/client'),
    stdio: 'inherit',
  });
};
