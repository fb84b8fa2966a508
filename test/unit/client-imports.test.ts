/**
 * The client package must run in a desktop app and a browser: nothing of the
 * server, `ws` only from the socket module (loaded lazily), `node:` built-ins
 * only in the CLI, and every relative import with its `.js` extension (ES modules).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PACKAGE = path.resolve(__dirname, '../../packages/client');
const SRC = path.join(PACKAGE, 'src');

function imports(file: string): string[] {
  const source = readFileSync(path.join(SRC, file), 'utf8');
  return [...source.matchAll(/(?:from|import|require\()\s*\(?['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) =>
  f.endsWith('.ts'),
);

test('the library imports only its own files, and ws only in socket.ts', () => {
  const library = files.filter((f) => !f.startsWith(`cli${path.sep}`));
  expect(library.length).toBeGreaterThan(8);
  const outside: string[] = [];
  for (const file of library) {
    for (const spec of imports(file)) {
      const own =
        spec.startsWith('./') &&
        spec.endsWith('.js') &&
        path.resolve(SRC, path.dirname(file), spec).startsWith(SRC + path.sep);
      if (!own && !(spec === 'ws' && file === 'socket.ts')) outside.push(`${file}: ${spec}`);
    }
  }
  expect(outside).toEqual([]);
  // ws is loaded lazily (a dynamic import), so a page never touches it
  expect(readFileSync(path.join(SRC, 'socket.ts'), 'utf8')).toMatch(/await import\('ws'\)/);
});

test('the CLI imports the library, commander and node: built-ins only', () => {
  const outside: string[] = [];
  for (const file of files.filter((f) => f.startsWith(`cli${path.sep}`))) {
    for (const spec of imports(file)) {
      const ok =
        spec === 'commander' ||
        spec.startsWith('node:') ||
        (spec.startsWith('.') &&
          spec.endsWith('.js') &&
          path.resolve(SRC, path.dirname(file), spec).startsWith(SRC + path.sep));
      if (!ok) outside.push(`${file}: ${spec}`);
    }
  }
  expect(outside).toEqual([]);
});

test('the package is publishable: not private, its files, exports with types, engines, license', () => {
  const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  expect(pkg.name).toBe('@relayq/client');
  expect(pkg.private).toBeUndefined();
  expect(pkg.files).toEqual(['dist', 'README.md', 'LICENSE']);
  expect(pkg.engines).toEqual({ node: '>=20' });
  expect(pkg.license).toBe('MIT');
  expect(Object.keys(pkg.dependencies).sort()).toEqual(['commander', 'ws']);
  expect(pkg.exports['.']).toEqual({
    import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
    require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
  });
  expect(pkg.browser).toEqual({ ws: false });
  expect(readFileSync(path.join(PACKAGE, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
});

test('the server package re-exports the client as relayq/client', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
  expect(pkg.exports['./client']).toEqual({
    types: './dist/src/client/index.d.ts',
    default: './dist/src/client/index.js',
  });
  expect(pkg.workspaces).toEqual(['packages/*']);
  expect(readFileSync(path.resolve(__dirname, '../../src/client/index.ts'), 'utf8')).toMatch(
    /export \* from '@relayq\/client';/,
  );
});
