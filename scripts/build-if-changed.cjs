#!/usr/bin/env node
/**
 * `npm start`'s build step: runs `npm run build` only when an input of the
 * build changed since the last build this script made, or an output is
 * missing. The inputs are the files the compilers read (src/, the client
 * package's sources and build script, the tsconfigs, package.json and the
 * lock), compared by content (SHA-256) with the stamp dist/.build-inputs.json,
 * so a branch switch there and back is seen and a mere touch is not. lua/ is
 * not built: the service reads it when it starts.
 * `--check`: print whether a build is needed (exit 0 up to date, 1 not), build nothing.
 * `--quiet`: print nothing when up to date (scripts/relayq.cjs runs it before every command).
 */
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-inputs.json');
const INPUTS = [
  'src',
  'packages/client/src',
  'packages/client/scripts',
  'packages/client/package.json',
  'packages/client/tsconfig.cjs.json',
  'packages/client/tsconfig.esm.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
const OUTPUTS = [
  'dist/src/cli/main.js',
  'dist/src/dashboard/public/index.html',
  'packages/client/dist/cjs/index.js',
  'packages/client/dist/esm/index.js',
];

/** Every input file (relative path) with the SHA-256 of its content. */
function inputHashes() {
  const hashes = {};
  const visit = (rel) => {
    const full = path.join(ROOT, rel);
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) visit(path.posix.join(rel, name));
    } else if (stat.isFile()) {
      hashes[rel] = createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  INPUTS.forEach(visit);
  return hashes;
}

function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
}

/** Why a build is needed, or null when the last build is up to date. */
function reasonToBuild(hashes) {
  const missing = OUTPUTS.find((file) => !fs.existsSync(path.join(ROOT, file)));
  if (missing) return `${missing} is missing`;
  const stamp = readStamp();
  if (!stamp) return 'no build of this checkout is recorded';
  const changed = [...new Set([...Object.keys(hashes), ...Object.keys(stamp)])]
    .filter((file) => hashes[file] !== stamp[file])
    .sort();
  if (changed.length === 0) return null;
  const more = changed.length > 1 ? ` and ${changed.length - 1} more` : '';
  return `${changed[0]}${more} changed since the last build`;
}

function main() {
  const hashes = inputHashes();
  const reason = reasonToBuild(hashes);
  if (reason === null) {
    if (!process.argv.includes('--quiet')) {
      process.stdout.write('build: up to date (no source changed since the last build)\n');
    }
    return 0;
  }
  if (process.argv.includes('--check')) {
    process.stdout.write(`build: needed: ${reason}\n`);
    return 1;
  }
  process.stdout.write(`build: ${reason}; building\n`);
  // no stamp while building: a build that fails half-way is redone on the next start
  fs.rmSync(STAMP, { force: true });
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], {
        cwd: ROOT,
        stdio: 'inherit',
      })
    : spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return build.status ?? 1;
  // the inputs as they were when the build began: a file changed meanwhile is rebuilt next time
  fs.writeFileSync(STAMP, `${JSON.stringify(hashes, null, 1)}\n`);
  return 0;
}

process.exitCode = main();
