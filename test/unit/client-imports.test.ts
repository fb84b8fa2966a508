/** The SDK must run in a desktop app: nothing of the server, only ws and Node's built-ins. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const CLIENT = path.resolve(__dirname, '../../src/client');

test('src/client imports only ws, node: built-ins and its own files', () => {
  const files = readdirSync(CLIENT, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  expect(files.length).toBeGreaterThan(5);
  const outside: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(CLIENT, file), 'utf8');
    for (const [, spec] of source.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)) {
      const allowed =
        spec === 'ws' ||
        spec.startsWith('node:') ||
        (spec.startsWith('.') &&
          path.resolve(CLIENT, path.dirname(file), spec).startsWith(CLIENT + path.sep));
      if (!allowed) outside.push(`${file}: ${spec}`);
    }
  }
  expect(outside).toEqual([]);
});

test('the package exports relayq/client with its types', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
  expect(pkg.exports['./client']).toEqual({
    types: './dist/src/client/index.d.ts',
    default: './dist/src/client/index.js',
  });
  expect(pkg.exports['.']).toEqual({
    types: './dist/src/index.d.ts',
    default: './dist/src/index.js',
  });
});
