/** `npm run openapi`: writes openapi.json at the repository root from the built document. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi } from './document';

export function openapiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

if (require.main === module) {
  const file = path.resolve(process.argv[2] ?? 'openapi.json');
  writeFileSync(file, openapiText());
  process.stdout.write(`wrote ${file}\n`);
}
