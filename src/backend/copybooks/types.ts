/**
 * The TypeScript types of every copybook here, for `records.ts` (checked in, so type checks need no build step):
 * `npm run records:types` (src/cli/records-types.ts) writes it, and a test fails when it is stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileCopybook, layoutJsonSchema, layoutTypeScript, typeNameOf } from '@corebridge/records';

const DIR = new URL('./', import.meta.url);
export const RECORD_TYPES_FILE = fileURLToPath(new URL('./records.ts', DIR));

export function copybookTypes(): string {
  const names = readdirSync(DIR)
    .filter((f) => f.endsWith('.cpy'))
    .map((f) => f.slice(0, -4))
    .sort();
  const declarations: string[] = [];
  const byCopybook: string[] = [];
  for (const name of names) {
    const source = readFileSync(new URL(`./${name}.cpy`, DIR), 'utf8');
    const schema = layoutJsonSchema(compileCopybook(source, { fileName: `${name}.cpy` }));
    const typeName = typeNameOf(String(schema['title']));
    declarations.push(layoutTypeScript(schema, typeName));
    byCopybook.push(`  ${name}: ${typeName};`);
  }
  return [
    '// Generated from src/backend/copybooks/*.cpy by `npm run records:types` ' +
      '(src/backend/copybooks/types.ts): do not edit.',
    '',
    declarations.join('\n'),
    "/** Each copybook's record, by copybook name. */",
    'export interface CopybookRecords {',
    ...byCopybook,
    '}',
    '',
  ].join('\n');
}
