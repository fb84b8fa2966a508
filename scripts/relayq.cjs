#!/usr/bin/env node
/**
 * The `relayq` command of a clone (`npx relayq ...`, or plain `relayq` after
 * `npm link`): builds first when a source changed since the last build, as
 * `npm start` does (its lines on stderr, so that the command's output stays
 * clean), then runs the compiled CLI. It exists before any build, so npm links
 * it even in a fresh clone (npx keeps a link it could not make missing).
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const build = spawnSync(
  process.execPath,
  [path.join(__dirname, 'build-if-changed.cjs'), '--quiet'],
  {
    stdio: ['ignore', process.stderr, process.stderr],
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);
require(path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js'));
