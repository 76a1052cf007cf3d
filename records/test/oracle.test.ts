/**
 * The codec against GnuCOBOL: every fixture in test/fixtures/oracle holds bytes that a COBOL program compiled
 * by cobc produced (`npm run oracle` regenerates them). encode must produce exactly those bytes and decode
 * must read them back to the values. cobc is not needed here.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCopybook } from '../src/index.ts';
import type { EbcdicTableFixture, OracleFixture } from '../scripts/oracle/fixture.ts';
import { includesReader } from '../scripts/oracle/includes.ts';

const dir = join(import.meta.dirname, 'fixtures/oracle');
const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];
const read = (file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8'));
const isTable = (x: unknown): x is EbcdicTableFixture => (x as { name?: unknown }).name === 'gnucobol-ebcdic-table';
const fixtures = files.map(read).filter((x): x is OracleFixture => !isTable(x));
const table = files.map(read).find(isTable);

test('the GnuCOBOL oracle fixtures are present', () => {
  assert.ok(existsSync(dir), `${dir} is missing; run npm run oracle where cobc is installed`);
  assert.ok(fixtures.length > 0, `${dir} holds no fixtures; run npm run oracle where cobc is installed`);
  for (const f of fixtures) {
    assert.ok(f.vectors.length > 0, `${f.name} has no vectors`);
    assert.match(f.cobc.version, /GnuCOBOL/);
    for (const v of f.vectors) assert.match(v.hex, /^(?:[0-9a-f]{2})+$/, `${f.name} / ${v.name}: hex`);
  }
});

for (const f of fixtures) {
  describe(`GnuCOBOL oracle: ${f.name} (${f.cobc.flags.join(' ')})`, () => {
    const layout = compileCopybook(f.copybook.join('\n'), {
      ...f.options,
      fileName: `${f.name}.cpy`,
      ...(f.includes ? { readCopybook: includesReader(f.includes) } : {}),
    });
    for (const v of f.vectors) {
      if (v.codecDiffers) {
        const { hex, why } = v.codecDiffers;
        test(`${v.name}: encode differs from cobc by design (${why})`, () => {
          assert.notEqual(hex, v.hex, 'cobc now writes what the codec writes: remove codecDiffers');
          assert.equal(layout.encode(v.values).toString('hex'), hex);
        });
      } else {
        test(`${v.name}: encode gives cobc's bytes`, () => {
          assert.equal(layout.encode(v.values).toString('hex'), v.hex);
        });
      }
      test(`${v.name}: decode reads cobc's bytes back`, () => {
        assert.deepEqual(layout.decode(Buffer.from(v.hex, 'hex')), v.decoded ?? v.values);
      });
    }
  });
}

test("cp037 fixtures use only characters on which GnuCOBOL's EBCDIC table and cp037 agree", () => {
  assert.ok(table !== undefined, 'gnucobol-ebcdic-table.json is missing; run npm run oracle');
  const differing = new Set(table.differencesFromCp037.map((d) => d.char));
  const strings = (x: unknown): string[] =>
    typeof x === 'string'
      ? [x]
      : Array.isArray(x)
        ? x.flatMap(strings)
        : typeof x === 'object' && x !== null
          ? Object.values(x).flatMap(strings)
          : [];
  for (const f of fixtures.filter((x) => x.cobc.ebcdicDisplay)) {
    const used = [...f.copybook, ...f.vectors.flatMap((v) => strings(v.values))].join('');
    for (const ch of differing)
      assert.ok(
        !used.includes(ch),
        `${f.name} uses "${ch}", which GnuCOBOL's EBCDIC table maps differently from cp037`,
      );
  }
});
