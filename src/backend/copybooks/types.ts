/**
 * The TypeScript types of every copybook in this directory, generated into `records.ts` (checked in, so the
 * type check needs no build step): `npm run records:types` writes it, and a test fails when it is stale.
 * Routes and programs build and read records through these types: a field renamed in a copybook and not in
 * the code fails `tsc`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileCopybook, layoutJsonSchema } from '../../records/index.ts';
import { exitWithUsageIfAsked } from '../../cli/help.ts';
import { layoutTypeScript, typeNameOf } from '../../records/typescript.ts';

const DIR = new URL('./', import.meta.url);
export const RECORD_TYPES_FILE = fileURLToPath(new URL('./records.ts', DIR));

export function copybookTypes(): string {
  const names = readdirSync(DIR).filter((f) => f.endsWith('.cpy')).map((f) => f.slice(0, -4)).sort();
  const declarations: string[] = [];
  const byCopybook: string[] = [];
  for (const name of names) {
    const schema = layoutJsonSchema(compileCopybook(readFileSync(new URL(`./${name}.cpy`, DIR), 'utf8'), { fileName: `${name}.cpy` }));
    const typeName = typeNameOf(String(schema['title']));
    declarations.push(layoutTypeScript(schema, typeName));
    byCopybook.push(`  ${name}: ${typeName};`);
  }
  return [
    '// Generated from src/backend/copybooks/*.cpy by `npm run records:types` (src/backend/copybooks/types.ts): do not edit.',
    '',
    declarations.join('\n'),
    '/** Each copybook\'s record, by copybook name. */',
    'export interface CopybookRecords {',
    ...byCopybook,
    '}',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  exitWithUsageIfAsked(process.argv.slice(2), `usage: npm run records:types
  writes src/backend/copybooks/records.ts: the TypeScript type of every copybook in src/backend/copybooks`);
  writeFileSync(RECORD_TYPES_FILE, copybookTypes());
  process.stdout.write(`wrote ${RECORD_TYPES_FILE}\n`);
}
