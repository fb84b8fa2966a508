/**
 * The shape of src/ (STYLE.md, docs/design.md "The map"): entrances stand side by side on
 * the relay operations layer and never import one another (type-only imports included);
 * only the store knows Redis; and no module imports itself through a circle.
 */
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../src');

/** The entrances: each translates one way in to src/relay/ calls. */
const ENTRANCES = ['http', 'ws', 'webhooks', 'sqs', 'destinations'];

/** What each layer may import (folders of src/; '(root)' is a file directly in src/). */
const ALLOWED: Record<string, string[]> = {
  // entrances: the relay, the web kit, credentials, shared types and schemas
  ...Object.fromEntries(
    ENTRANCES.map((e) => [e, ['relay', 'web', 'auth', 'schemas', 'config', 'filters', '(root)']]),
  ),
  relay: ['store', 'auth', 'limits', 'config', 'schemas', 'filters', '(root)'],
  web: ['relay', 'auth', 'schemas', 'config', '(root)'],
  auth: ['schemas', 'config', '(root)'],
  limits: ['store', 'config', '(root)'],
  store: ['config', '(root)'],
  config: ['(root)'],
  schemas: ['(root)'],
  filters: ['(root)'],
  // the HTTP API's contract reads the schemas the entrances validate with
  openapi: ['schemas', 'web', 'webhooks', 'destinations', 'config', '(root)'],
};

/** Files directly in src/ that are not the wiring (app, server, CLI's start) import only these. */
const ROOT_LEAVES = ['errors.ts', 'types.ts', 'metrics.ts', 'logger.ts'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import of a file (import and export ... from, type-only included). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), m[1]);
    const candidates = [`${target}.ts`, path.join(target, 'index.ts')];
    const found = candidates.find((c) => fs.existsSync(c));
    if (found) out.push(found);
  }
  return out;
}

/** The folder of src/ a file is in ('(root)' for files directly in src/). */
function layerOf(file: string): string {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length === 1 ? '(root)' : rel[0];
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

test('every layer imports only what it may: entrances never import one another', () => {
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const from = layerOf(file);
    const allowed = ALLOWED[from];
    if (!allowed) continue;
    for (const target of imports) {
      const to = layerOf(target);
      if (to === from) continue;
      const rootLeaf = to === '(root)' && ROOT_LEAVES.includes(path.basename(target));
      if (!allowed.includes(to) || (to === '(root)' && !rootLeaf)) {
        wrong.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
      }
    }
  }
  expect(wrong).toEqual([]);
});

test('every folder of src/ has a rule (a new folder states what it may import)', () => {
  const folders = new Set(files.map(layerOf));
  folders.delete('(root)');
  const wiring = ['cli', 'dashboard', 'client', 'embedded'];
  const unruled = [...folders].filter((f) => !(f in ALLOWED) && !wiring.includes(f));
  expect(unruled).toEqual([]);
});

test('no import circles in src/ (type-only imports included)', () => {
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = stack.slice(stack.indexOf(next)).map((f) => path.relative(SRC, f));
        circles.push(circle.join(' -> '));
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  expect(circles).toEqual([]);
});
