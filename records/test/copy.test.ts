/**
 * COPY and REPLACE: what the layout looks like after the compiler-directing pass, where errors point, and which
 * files the default reader tries. The GnuCOBOL oracle (cases-copy.ts) checks the same constructs against cobc.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  compileCopybook,
  copybookCandidates,
  CopybookError,
  fileCopybookReader,
  layoutItems,
  MAX_COPY_DEPTH,
  type CompileOptions,
  type CopybookReader,
  type LayoutItem,
} from '../src/index.ts';
import { copybookArb, renderCopybook } from './arbitraries.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

/** A reader over in-memory copybooks, keyed by upper-case name. */
function books(files: Record<string, string>): CopybookReader {
  return (name) => {
    const text = files[name];
    return text === undefined ? undefined : { text, fileName: `${name}.cpy` };
  };
}

function compile(source: string, files: Record<string, string>, options: CompileOptions = {}) {
  return compileCopybook(source, { fileName: 'MAIN.cpy', readCopybook: books(files), ...options });
}

/** name offset length picture, one per elementary item. */
function shape(source: string, files: Record<string, string>): string[] {
  const layout = compile(source, files);
  return [...layoutItems(layout.root)]
    .filter((i: LayoutItem) => !i.children)
    .map((i) => `${i.cobolName} ${i.offset} ${i.length} ${i.picture}`);
}

function error(source: string, files: Record<string, string>, options: CompileOptions = {}): CopybookError {
  try {
    compile(source, files, options);
  } catch (e) {
    if (e instanceof CopybookError) return e;
    throw e;
  }
  assert.fail('expected a CopybookError');
}

test('COPY inserts the copybook where the statement is, mid-entry too, fixed and free format mixed', () => {
  const files = {
    ADDR: '05 ADDR-CITY PIC X(10).\n05 ADDR-ZIP PIC 9(5). *> free format\n',
    PIC5: ['      * a picture on its own', '           PIC X(5)'].join('\n'),
  };
  const source = fixed(
    '01 CUST.',
    '   05 CUST-ID PIC 9(4).',
    '   COPY ADDR.',
    '   05 CUST-TAG',
    '      COPY PIC5.',
    '.',
  );
  assert.deepEqual(shape(source, files), [
    'CUST-ID 0 4 9(4)',
    'ADDR-CITY 4 10 X(10)',
    'ADDR-ZIP 14 5 9(5)',
    'CUST-TAG 19 5 X(5)',
  ]);
});

test('items from a copybook name their file and line; the rest keep the compiled file lines', () => {
  const layout = compile(fixed('01 R.', '   05 A PIC X.', '   COPY INNER.'), { INNER: fixed('', '05 B PIC X(2).') });
  const [a, b] = layout.root.children!;
  assert.deepEqual([a!.fileName, a!.line, a!.column], [undefined, 2, 11]);
  assert.deepEqual([b!.fileName, b!.line, b!.column], ['INNER.cpy', 2, 8]);
});

test('REPLACING: pseudo-text matches word sequences whatever the spacing, lines and comments', () => {
  const files = {
    T: [
      '       05 T-A PIC',
      '      *  comment between the words',
      '                 X(3) .',
      '       05 T-B PIC X(3).',
    ].join('\n'),
  };
  const source = fixed('01 R.', '   COPY T REPLACING ==PIC X(3)== BY ==PIC', '     9(7)==.');
  assert.deepEqual(shape(source, files), ['T-A 0 7 9(7)', 'T-B 7 7 9(7)']);
});

test('REPLACING: words, literals, LEADING/TRAILING partial words and :TAG:, first rule wins, no rescan', () => {
  const files = {
    W: fixed(
      '05 XX-A PIC X(2).',
      '05 B-XX PIC X(3).',
      '05 XXXX PIC X(4).',
      '05 OLD PIC X(5).',
      "05 :P:-C PIC X(3) VALUE 'ABC'.",
      '05 D PIC 9(2) VALUE 12.',
    ),
  };
  const source = fixed(
    '01 R.',
    '   COPY W REPLACING LEADING ==XX== BY ==YY==',
    '                    TRAILING ==XX== BY ==ZZ==',
    "                    OLD BY NEW 'ABC' BY 'XYZ' 12 BY 34",
    '                    ==:P:== BY ==PRE==',
    '                    ==NEW== BY ==NEWER==.',
  );
  const layout = compile(source, files);
  const names = [...layoutItems(layout.root)].map((i) => i.cobolName);
  // XXXX: LEADING matched first; NEW is the output of a rule, not rescanned
  assert.deepEqual(names, ['R', 'YY-A', 'B-ZZ', 'YYXX', 'NEW', 'PRE-C', 'D']);
  assert.equal(layout.encode({}).toString('latin1'), '\x40'.repeat(14) + '\xe7\xe8\xe9\xf3\xf4');
  const values = [...layoutItems(layout.root)].map((i) => i.value).filter((v) => v !== undefined);
  assert.deepEqual(values, ['XYZ', 34]);
});

test('REPLACING of an outer COPY applies to nested copies too, after their own REPLACING', () => {
  const files = {
    OUTER: fixed('05 XX-A PIC X(2).', 'COPY INNER REPLACING ==X(3)== BY ==X(4)==.'),
    INNER: fixed('05 XX-B PIC X(3).'),
  };
  const source = fixed(
    '01 R.',
    '   COPY OUTER REPLACING LEADING ==XX-== BY ==CU-==',
    '                        ==X(4)== BY ==X(6)==.',
  );
  assert.deepEqual(shape(source, files), ['CU-A 0 2 X(2)', 'CU-B 2 6 X(6)']);
});

test('REPLACE applies after COPY until REPLACE OFF; ALSO adds rules and LAST OFF goes back one step', () => {
  const files = { C: fixed('05 C-A PIC X(5).') };
  const source = fixed(
    'REPLACE ==X(5)== BY ==X(7)==.',
    '01 R.',
    '   COPY C.',
    '   REPLACE ALSO ==C-A== BY ==C-B==.',
    '   COPY C.',
    '   REPLACE LAST OFF.',
    '   05 C-C PIC X(5).',
    '   REPLACE OFF.',
    '   05 C-D PIC X(5).',
  );
  assert.deepEqual(shape(source, files), ['C-A 0 7 X(7)', 'C-B 7 7 X(7)', 'C-C 14 7 X(7)', 'C-D 21 5 X(5)']);
});

test('an error in copied text names its copybook, line and column, and the chain of COPY statements', () => {
  const files = { OUTER: fixed('', 'COPY INNER.'), INNER: fixed('05 BAD PIC Q(3).') };
  const e = error(fixed('01 R.', '   COPY OUTER.'), files);
  assert.equal(
    e.message,
    'INNER.cpy:1:19: PIC Q(3): "Q" is not a picture symbol (in COPY INNER from OUTER.cpy:2:8, in COPY OUTER from MAIN.cpy:2:11)',
  );
  assert.deepEqual(
    [e.fileName, e.line, e.column, e.reason],
    ['INNER.cpy', 1, 19, 'PIC Q(3): "Q" is not a picture symbol'],
  );
  assert.deepEqual(
    e.includes.map((s) => `${s.name}@${s.fileName}:${s.line}`),
    ['INNER@OUTER.cpy:2', 'OUTER@MAIN.cpy:2'],
  );
  // a source-level error (the tokenizer's) in a copybook carries the chain too
  const literal = error(fixed('01 R.', '   COPY OPEN.'), { OPEN: "05 A PIC X(2) VALUE 'AB\n" });
  assert.equal(literal.message, 'OPEN.cpy:1:1: literal not closed on its line (in COPY OPEN from MAIN.cpy:2:11)');
});

test('a missing copybook, a cycle and runaway nesting are errors at the COPY statement', () => {
  assert.equal(
    error(fixed('01 R.', '   COPY NOPE OF LIB.'), {}).message,
    'MAIN.cpy:2:11: COPY NOPE OF LIB: copybook not found (readCopybook found nothing)',
  );
  const cycle = error(fixed('01 R.', '   COPY A.'), { A: fixed('COPY B.'), B: fixed('  COPY A.') });
  assert.equal(
    cycle.message,
    'B.cpy:1:10: COPY A: a COPY cycle: A.cpy → B.cpy → A.cpy (in COPY B from A.cpy:1:8, in COPY A from MAIN.cpy:2:11)',
  );
  // every name new: only the depth limit stops it
  const endless: CopybookReader = (name) => ({ text: fixed(`COPY ${name}X.`), fileName: name });
  const deep = error(fixed('01 R.', '   COPY N.'), {}, { readCopybook: endless });
  assert.match(
    deep.message,
    new RegExp(`COPY N${'X'.repeat(MAX_COPY_DEPTH)}: COPY nested more than ${MAX_COPY_DEPTH} deep`),
  );
  assert.equal(deep.includes.length, MAX_COPY_DEPTH);
});

test('COPY and REPLACE syntax errors point at the word', () => {
  const cases: Array<[string, string, number, number]> = [
    ['   COPY A REPLACING ==X== Y.', 'expected BY, found "Y"', 2, 34],
    ['   COPY A REPLACING ==X== BY ==Y==', 'expected the period that ends COPY, found end of file', 2, 11],
    ['   COPY A REPLACING ==== BY ==Y==.', 'the text REPLACING looks for cannot be empty', 2, 28],
    ['   COPY A REPLACING ==X BY Y.', 'pseudo-text not closed (expected ==)', 2, 28],
    ['   COPY A REPLACING LEADING ==X Y== BY ==Z==.', 'LEADING needs one partial word on each side of BY', 2, 28],
    ['   COPY A REPLACING.', 'REPLACING needs at least one "… BY …"', 2, 27],
    ['   REPLACE X BY Y.', 'expected ==pseudo-text== as the text REPLACE looks for, found "X"', 2, 19],
  ];
  for (const [statement, reason, line, column] of cases) {
    const e = error(fixed('01 R.', statement), { A: fixed('05 A PIC X.') });
    assert.deepEqual([e.reason, e.line, e.column], [reason, line, column], statement);
  }
});

test('the default reader: own directory first, then copybookPath; OF library as subdirectory or path entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-copy-'));
  try {
    for (const d of ['src', 'path1', 'path2/SHARED', 'COMMON']) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'src/MAIN.cpy'), fixed('01 R.', '   COPY ONE.', '   COPY TWO.', '   COPY LIBC OF SHARED.'));
    writeFileSync(join(dir, 'src/ONE.cpy'), fixed('05 OWN-DIR PIC X.'));
    writeFileSync(join(dir, 'path1/ONE.cpy'), fixed('05 PATH-ONE PIC X.'));
    writeFileSync(join(dir, 'path1/two.cbl'), fixed('05 LOWER-CBL PIC X.'));
    writeFileSync(join(dir, 'path2/SHARED/LIBC'), fixed('05 IN-LIBRARY PIC X.'));
    const path = [join(dir, 'path1'), join(dir, 'path2')];
    const main = join(dir, 'src/MAIN.cpy');
    const layout = compileCopybook(fixed('01 R.', '   COPY ONE.', '   COPY TWO.', '   COPY LIBC OF SHARED.'), {
      fileName: main,
      copybookPath: path,
    });
    assert.deepEqual(
      layout.root.children!.map((c) => `${c.cobolName} ${c.fileName}`),
      [
        `OWN-DIR ${join(dir, 'src/ONE.cpy')}`,
        `LOWER-CBL ${join(dir, 'path1/two.cbl')}`,
        `IN-LIBRARY ${join(dir, 'path2/SHARED/LIBC')}`,
      ],
    );
    // a path entry that is the library itself
    const viaEntry = compileCopybook(fixed('01 R.', '   COPY LIBC OF SHARED.'), {
      fileName: main,
      copybookPath: [join(dir, 'path2/SHARED')],
    });
    assert.equal(viaEntry.root.children![0]!.cobolName, 'IN-LIBRARY');
    assert.deepEqual(copybookCandidates('ABC', undefined, 'src/MAIN.cpy', ['p']).slice(0, 8), [
      'src/ABC',
      'src/ABC.cpy',
      'src/ABC.cbl',
      'src/ABC.CPY',
      'src/ABC.CBL',
      'src/ABC.cob',
      'src/ABC.COB',
      'src/abc',
    ]);
    assert.deepEqual(
      copybookCandidates('ABC', 'LIB', 'MAIN.cpy', ['p', 'q/LIB']).filter((f) => f.endsWith('/ABC')),
      ['LIB/ABC', 'lib/ABC', 'p/LIB/ABC', 'p/lib/ABC', 'q/LIB/LIB/ABC', 'q/LIB/lib/ABC', 'q/LIB/ABC'],
    );
    const missing = error(
      fixed('01 R.', '   COPY NONE.'),
      {},
      { fileName: main, copybookPath: path, readCopybook: undefined },
    );
    assert.equal(
      missing.message,
      `${main}:2:11: COPY NONE: copybook not found (tried NONE and none, bare or with .cpy, .cbl, .CPY, .CBL, .cob, .COB, in ${join(dir, 'src')}, ${path.join(', ')})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fileCopybookReader: the default search as a reader, names relative to baseDir wherever the process runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-copy-reader-'));
  try {
    mkdirSync(join(dir, 'shared'));
    writeFileSync(join(dir, 'main.cpy'), fixed('01 R.', '   COPY HDR.', '   05 BODY PIC X(2).'));
    writeFileSync(join(dir, 'shared/HDR.cpy'), fixed('05 HDR-ID PIC 9(4).', '05 HDR-BAD PIC Q.'));
    const readCopybook = fileCopybookReader(['shared'], { baseDir: dir });
    assert.deepEqual(readCopybook('NONE', undefined, 'main.cpy'), { searched: ['.', 'shared'] });
    const found = readCopybook('HDR', undefined, 'main.cpy');
    assert.ok(found !== undefined && 'text' in found);
    assert.equal(found.fileName, 'shared/HDR.cpy');
    // the error names the copybook as the reader named it, relative to baseDir, not to the working directory
    assert.throws(
      () => compileCopybook(fixed('01 R.', '   COPY HDR.'), { fileName: 'main.cpy', readCopybook }),
      (e: unknown) => e instanceof CopybookError && /^shared\/HDR\.cpy:2:/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: --copybook-path and COBCPY for every copybook command; a missing copybook is one line and exit 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-copy-cli-'));
  const bin = join(import.meta.dirname, '../src/bin.ts');
  const run = (args: string[], env: Record<string, string> = {}, input = '') =>
    spawnSync(process.execPath, [bin, ...args], { input, env: { ...process.env, COBCPY: '', ...env } });
  try {
    mkdirSync(join(dir, 'lib1'));
    mkdirSync(join(dir, 'lib2'));
    writeFileSync(join(dir, 'main.cpy'), fixed('01 R.', '   COPY ONE.', '   COPY TWO.'));
    writeFileSync(join(dir, 'lib1/ONE.cpy'), fixed('05 ONE PIC X(2).'));
    writeFileSync(join(dir, 'lib2/TWO.cpy'), fixed('05 TWO PIC 9(3).'));
    const main = join(dir, 'main.cpy');
    const paths = ['--copybook-path', join(dir, 'lib1'), '--copybook-path', join(dir, 'lib2')];
    const inspect = run(['inspect', main, ...paths]);
    assert.equal(inspect.status, 0, inspect.stderr.toString());
    assert.match(inspect.stdout.toString(), /^R: 5 bytes/);
    const encode = run(['encode', main, '--profile', 'gnucobol', ...paths], {}, '{"one":"AB","two":7}');
    assert.equal(encode.stdout.toString(), '4142303037\n');
    const types = run(['types', main], { COBCPY: `${join(dir, 'lib1')}:${join(dir, 'lib2')}` });
    assert.match(types.stdout.toString(), /one: string;[\s\S]*two: number;/);
    const missing = run(['decode', main, '--copybook-path', join(dir, 'lib1')], {}, '0000000000');
    assert.equal(missing.status, 1);
    const stderr = missing.stderr.toString();
    assert.equal(stderr.split('\n').length, 2, stderr);
    assert.match(
      stderr,
      new RegExp(
        `^corebridge-copybook: ${main}:3:11: COPY TWO: copybook not found \\(tried TWO and two, .* in ${dir}, ${join(dir, 'lib1')}\\)\\n$`,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The layout without where items were written (which COPY changes). */
function placeless(item: LayoutItem): unknown {
  const { fileName: _f, line: _l, column: _c, children, ...rest } = item;
  return { ...rest, ...(children ? { children: children.map(placeless) } : {}) };
}

test('property: a copybook cut into nested COPYs at entry boundaries compiles to the same layout', () => {
  fc.assert(
    fc.property(
      copybookArb,
      fc.constantFrom('fixed' as const, 'free' as const),
      fc.array(fc.nat(), { maxLength: 4 }),
      (spec, format, cuts) => {
        const text = renderCopybook(spec, format);
        const whole = compileCopybook(text, { fileName: 'WHOLE.cpy' });
        const lines = text.split('\n');
        // an entry starts with a level number; other lines may continue a literal or a clause
        const starts = lines.flatMap((l, i) => (i > 0 && /^(?: {7})?\s*\d+ /.test(l) ? [i] : []));
        const at = [...new Set(cuts.map((c) => starts[c % Math.max(starts.length, 1)]!))]
          .filter((i) => i !== undefined)
          .sort((a, b) => a - b);
        const pieces = [0, ...at].map((from, k) => lines.slice(from, at[k] ?? lines.length));
        const copy = (n: number) => (format === 'fixed' ? `       COPY PART${n}.` : `COPY PART${n}.`);
        const files: Record<string, string> = {};
        pieces.forEach((piece, k) => {
          const body = k < pieces.length - 1 ? [...piece, copy(k + 1)] : piece;
          if (k > 0) files[`PART${k}`] = (format === 'free' ? ['>>SOURCE FORMAT FREE', ...body] : body).join('\n');
        });
        const main = pieces.length > 1 ? [...pieces[0]!, copy(1)].join('\n') : text;
        const copied = compileCopybook(main, { fileName: 'MAIN.cpy', readCopybook: books(files) });
        assert.deepEqual(placeless(copied.root), placeless(whole.root));
        assert.deepEqual(copied.jsonSchema(), whole.jsonSchema());
      },
    ),
    { numRuns: 150 },
  );
});
