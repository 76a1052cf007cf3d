/**
 * `node scripts/oracle/deedit.ts`: GnuCOBOL's de-editing beside the codec's decode. For every numeric-edited
 * item of the ASCII edited fixtures, a program MOVEs each vector's value into the item, MOVEs the item to a
 * numeric item (de-editing) and DISPLAYs it; the value must be what the codec decodes from cobc's bytes.
 * Prints each difference; KNOWN lists where cobc 3.1.2 de-edits against the standard.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCopybook, type LayoutItem } from '../../src/index.ts';
import type { OracleFixture } from './fixture.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = ['numeric-edited', 'decimal-point-is-comma', 'currency-sign'];

/** Pictures cobc de-edits against the standard: the reason, by picture. */
const KNOWN: Record<string, string> = {
  '9(3)0': 'cobc reads the inserted 0 as a digit (0120 de-edits to 120, not 12)',
  '$Z(2)9.9(2)DB': 'cobc ignores DB: a debit de-edits positive',
};

const isEdited = (item: LayoutItem) => item.kind === 'numeric' && /[Z*+\-,./B0£$]|CR|DB/.test(stripCounts(item));
const stripCounts = (item: LayoutItem) => (item.picture ?? '').replace(/\(\d+\)/g, '');

function main(): void {
  const work = mkdtempSync(join(tmpdir(), 'corebridge-deedit-'));
  let checked = 0;
  const problems: string[] = [];
  try {
    for (const name of FIXTURES) {
      const fixture = JSON.parse(
        readFileSync(join(root, 'test/fixtures/oracle', `${name}.json`), 'utf8'),
      ) as OracleFixture;
      const layout = compileCopybook(fixture.copybook.join('\n'), { ...fixture.options, fileName: `${name}.cpy` });
      const items = (layout.root.children ?? []).filter(isEdited);
      const special = fixture.cobc.specialNames ?? [];
      const comma = special.some((c) => /DECIMAL-POINT IS COMMA/i.test(c));
      const lines = [
        '       IDENTIFICATION DIVISION.',
        '       PROGRAM-ID. DEEDIT.',
        ...(special.length > 0
          ? [
              '       ENVIRONMENT DIVISION.',
              '       CONFIGURATION SECTION.',
              '       SPECIAL-NAMES.',
              ...special.map((c, i) => `           ${c}${i === special.length - 1 ? '.' : ''}`),
            ]
          : []),
        '       DATA DIVISION.',
        '       WORKING-STORAGE SECTION.',
        ...fixture.copybook,
        `       01 ORX-N PIC -9(18)${comma ? ',' : '.'}9(6).`,
        '       PROCEDURE DIVISION.',
      ];
      const expected: Array<{ item: LayoutItem; value: unknown }> = [];
      for (const v of fixture.vectors) {
        const decoded = layout.decode(Buffer.from(v.hex, 'hex'));
        for (const item of items) {
          const key = item.jsonPath!;
          const literal = String(v.values[key]);
          lines.push(
            `           MOVE ${comma ? literal.replace('.', ',') : literal} TO ${item.cobolName}`,
            `           MOVE ${item.cobolName} TO ORX-N`,
            '           DISPLAY ORX-N',
          );
          expected.push({ item, value: decoded[key] });
        }
      }
      lines.push('           STOP RUN.');
      const src = join(work, `${name}.cob`);
      writeFileSync(src, `${lines.join('\n')}\n`, 'latin1');
      execFileSync('cobc', ['-x', '-o', join(work, name), src]);
      const out = execFileSync(join(work, name), { encoding: 'latin1' }).trim().split('\n');
      out.forEach((line, i) => {
        const { item, value } = expected[i]!;
        const cobc = Number(comma ? line.trim().replace(',', '.') : line.trim());
        checked++;
        if (cobc === Number(value)) return;
        const known = KNOWN[item.picture!];
        const text = `${name}: ${item.cobolName} PIC ${item.picture}: codec ${String(value)}, cobc ${cobc}`;
        problems.push(known ? `${text} (known: ${known})` : text);
      });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(problems.join('\n'));
  const unknown = problems.filter((p) => !p.includes('(known:'));
  console.log(`${checked} de-edits compared, ${problems.length} differ, ${unknown.length} not known`);
  if (unknown.length > 0) process.exitCode = 1;
}

main();
