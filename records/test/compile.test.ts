import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  compileCopybook,
  CopybookError,
  layoutItems,
  MappingError,
  RecordDecodeError,
  RecordEncodeError,
  type LayoutItem,
} from '../src/index.ts';

/** Fixed-format lines: code starts in column 8. */
const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

function item(root: LayoutItem, name: string): LayoutItem {
  const found = [...layoutItems(root)].find((i) => i.cobolName === name);
  assert.ok(found, `no item ${name}`);
  return found;
}

function compileError(source: string, options = {}): CopybookError {
  try {
    compileCopybook(source, { fileName: 'bad.cpy', ...options });
  } catch (e) {
    assert.ok(e instanceof CopybookError, `expected CopybookError, got ${String(e)}`);
    return e;
  }
  assert.fail('compiled without error');
}

test('offsets, lengths and JSON paths of a realistic record (z/OS sizes)', () => {
  const layout = compileCopybook(
    fixed(
      '01  ORDER-REC.',
      '    05  ORD-ID            PIC X(10).',
      '    05  ORD-QTY           PIC S9(3) COMP-3.',
      '    05  ORD-COUNT         PIC 9(4) COMP.',
      '    05  ORD-TOTAL         PIC S9(7)V99 SIGN LEADING SEPARATE.',
      '    05  ORD-LINE OCCURS 3 TIMES.',
      '        10  LINE-SKU      PIC X(6).',
      '        10  LINE-AMT      PIC S9(9) COMP-5.',
      '    05  FILLER            PIC X(2).',
    ),
  );
  assert.equal(layout.name, 'ORDER-REC');
  assert.equal(layout.maxLength, 10 + 2 + 2 + 10 + 3 * (6 + 4) + 2);
  assert.equal(layout.minLength, layout.maxLength);
  const qty = item(layout.root, 'ORD-QTY');
  assert.deepEqual(
    [qty.offset, qty.length, qty.jsonPath, qty.usage, qty.picture],
    [10, 2, 'ordQty', 'packed-decimal', 'S9(3)'],
  );
  const total = item(layout.root, 'ORD-TOTAL');
  assert.deepEqual(
    [total.offset, total.length, total.digits, total.scale, total.sign],
    [14, 10, 9, 2, { position: 'leading', separate: true }],
  );
  const amt = item(layout.root, 'LINE-AMT');
  assert.deepEqual([amt.offset, amt.length, amt.jsonPath], [30, 4, 'ordLine[].lineAmt']);
  assert.equal(item(layout.root, 'ORD-LINE').occurs?.max, 3);
  assert.equal(item(layout.root, 'FILLER').jsonPath, null);
});

test('binary sizes follow the profile: gnucobol 1/2/4/8, zos 2/4/8', () => {
  const src = fixed(
    '01 R.',
    '   05 A PIC 9(2) COMP.',
    '   05 B PIC S9(4) BINARY.',
    '   05 C PIC 9(9) COMP-4.',
    '   05 D PIC S9(18) COMP.',
  );
  const lengths = (profile: 'zos' | 'gnucobol') =>
    ['A', 'B', 'C', 'D'].map((n) => item(compileCopybook(src, { profile }).root, n).length);
  assert.deepEqual(lengths('gnucobol'), [1, 2, 4, 8]);
  assert.deepEqual(lengths('zos'), [2, 2, 4, 8]);
  assert.deepEqual(
    ['A'].map((n) => item(compileCopybook(src, { profile: 'zos', binarySizes: 'gnucobol' }).root, n).length),
    [1],
  );
});

test('free format, comments, continuation lines and sequence areas', () => {
  const free = compileCopybook(
    '*> free format\n01 REC.\n  05 NAME PIC X(5). *> trailing comment\n  05 AMT PIC 9(3)V9.\n',
    { format: 'free' },
  );
  assert.deepEqual([item(free.root, 'AMT').offset, free.maxLength], [5, 9]);
  const src = [
    '000100 01  REC.',
    '000200*    a comment line',
    '000300     05  GREETING PIC X(40) VALUE "HELLO ',
    '000400-    "WORLD".',
    '000500     05  LONG-NAME-',
    '000600-        FIELD PIC 9.',
  ].join('\n');
  const layout = compileCopybook(src);
  // a continued literal runs to column 72 of its first line, then goes on after the quote of the next
  const quoteColumn = src.split('\n')[2]!.indexOf('"') + 1;
  assert.equal(item(layout.root, 'GREETING').value, `HELLO ${' '.repeat(72 - quoteColumn - 6)}WORLD`);
  assert.equal(layout.decode(layout.encode({})).greeting, `HELLO ${' '.repeat(72 - quoteColumn - 6)}WORLD`);
  assert.equal(item(layout.root, 'LONG-NAME-FIELD').jsonPath, 'longNameField');
});

test('REDEFINES: first view by default, another selected by the mapping; renames and omissions', () => {
  const src = fixed(
    '01 R.',
    '   05 KIND PIC X.',
    '   05 BODY PIC X(6).',
    '   05 AS-NUM REDEFINES BODY PIC 9(6).',
    '   05 AS-PARTS REDEFINES BODY.',
    '      10 P1 PIC XX.',
    '      10 P2 PIC X(4).',
  );
  const first = compileCopybook(src);
  assert.equal(item(first.root, 'BODY').jsonPath, 'body');
  assert.equal(item(first.root, 'AS-NUM').jsonPath, null);
  assert.equal(item(first.root, 'AS-PARTS').offset, 1);
  const parts = compileCopybook(src, {
    mapping: { redefines: { BODY: 'AS-PARTS' }, fields: { KIND: 'recordType', 'P2 OF AS-PARTS': false } },
  });
  assert.equal(item(parts.root, 'BODY').jsonPath, null);
  assert.equal(item(parts.root, 'P1').jsonPath, 'asParts.p1');
  assert.equal(item(parts.root, 'P2').jsonPath, null);
  assert.deepEqual(parts.decode(parts.encode({ recordType: 'Z', asParts: { p1: 'AB' } })), {
    recordType: 'Z',
    asParts: { p1: 'AB' },
  });
  // Encode takes a view decode does not show when its key is the only view given; decode shows the selected one.
  assert.deepEqual(first.decode(first.encode({ asParts: { p1: 'AB', p2: 'CDEF' } })), { kind: '', body: 'ABCDEF' });
  assert.deepEqual(first.decode(first.encode({ asNum: 42 })), { kind: '', body: '000042' });
  assert.throws(
    () => first.encode({ body: 'x', asParts: { p1: 'AB' } }),
    /asParts: is an alternative to body: give one of body, asNum, asParts/,
  );
  assert.throws(
    () => first.encode({ asNum: 1, asParts: { p1: 'AB' } }),
    /asParts: is an alternative to asNum: give one of body, asNum, asParts/,
  );
  assert.throws(() => compileCopybook(src, { mapping: { fields: { NOPE: 'x' } } }), MappingError);
  assert.throws(() => compileCopybook(src, { mapping: { redefines: { BODY: 'KIND' } } }), /KIND is not a view of BODY/);
});

test('REDEFINES chosen by a discriminator, both directions; encode also chooses by the view given', () => {
  const src = fixed(
    '01 PAYMENT-METHOD.',
    '   05 PAY-ID PIC X(8).',
    '   05 PAY-METHOD PIC X.',
    '   05 PAY-DETAILS PIC X(30).',
    '   05 PAY-CARD REDEFINES PAY-DETAILS.',
    '      10 CARD-NUMBER PIC X(16).',
    '      10 CARD-EXPIRY PIC 9(4).',
    '   05 PAY-ACH REDEFINES PAY-DETAILS.',
    '      10 ACH-ROUTING PIC 9(9).',
    '      10 ACH-ACCOUNT PIC X(17).',
    '   05 PAY-AMOUNT PIC S9(7)V99 COMP-3.',
  );
  const choice = { discriminator: 'PAY-METHOD', views: { C: 'PAY-CARD', A: 'PAY-ACH' } };
  for (const profile of ['zos', 'gnucobol'] as const) {
    const layout = compileCopybook(src, { profile, mapping: { redefines: { 'PAY-DETAILS': choice } } });
    assert.equal(item(layout.root, 'PAY-DETAILS').jsonPath, null);
    assert.equal(item(layout.root, 'CARD-NUMBER').jsonPath, 'payCard.cardNumber');
    assert.equal(item(layout.root, 'ACH-ACCOUNT').jsonPath, 'payAch.achAccount');
    // Only the view given: the discriminator is written for it, and decode reads it back.
    const card = layout.encode({
      payId: 'P1',
      payCard: { cardNumber: '4111111111111111', cardExpiry: 1228 },
      payAmount: 12.5,
    });
    assert.deepEqual(layout.decode(card), {
      payId: 'P1',
      payMethod: 'C',
      payCard: { cardNumber: '4111111111111111', cardExpiry: 1228 },
      payAmount: 12.5,
    });
    const ach = layout.encode({ payId: 'P2', payMethod: 'A', payAch: { achRouting: 123456789, achAccount: 'ACC-1' } });
    assert.deepEqual(layout.decode(ach), {
      payId: 'P2',
      payMethod: 'A',
      payAch: { achRouting: 123456789, achAccount: 'ACC-1' },
      payAmount: 0,
    });
    // The same bytes as the fixed view, selected by hand, writes.
    const fixedAch = compileCopybook(src, { profile, mapping: { redefines: { 'PAY-DETAILS': 'PAY-ACH' } } });
    assert.deepEqual(
      ach,
      fixedAch.encode({ payId: 'P2', payMethod: 'A', payAch: { achRouting: 123456789, achAccount: 'ACC-1' } }),
    );

    const encodeError = (json: unknown) => {
      try {
        layout.encode(json);
      } catch (error) {
        assert.ok(error instanceof RecordEncodeError);
        return `${error.path}: ${error.reason}`;
      }
      return assert.fail('encode accepted it');
    };
    assert.equal(encodeError({ payMethod: 'C', payAch: { achRouting: 1 } }), 'payAch: payMethod "C" selects payCard');
    assert.equal(encodeError({ payMethod: 'X' }), 'payMethod: "X" is not one of "C", "A"');
    assert.equal(
      encodeError({ payCard: {}, payAch: {} }),
      'payAch: is an alternative to payCard: give one of payCard, payAch',
    );
    assert.equal(
      encodeError({ payDetails: 'x' }),
      'payDetails: unknown field (PAY-DETAILS is a view of PAY-DETAILS that the discriminator PAY-METHOD names for no value)',
    );
    // A value that names no view: a typed error at the discriminator's offset.
    const unknown = Buffer.from(card);
    unknown.set(compileCopybook(src, { profile }).encode({ payMethod: 'Z' }).subarray(8, 9), 8);
    assert.throws(
      () => layout.decode(unknown),
      (e: unknown) =>
        e instanceof RecordDecodeError && e.offset === 8 && /value "Z" selects no view of PAY-DETAILS/.test(e.message),
    );
  }
  const mappingError = (redefines: Record<string, unknown>) => () =>
    compileCopybook(src, { mapping: { redefines } as never });
  assert.throws(
    mappingError({ 'PAY-DETAILS': { discriminator: 'CARD-NUMBER', views: { C: 'PAY-CARD' } } }),
    /the discriminator CARD-NUMBER must be an elementary item of the group that holds PAY-DETAILS/,
  );
  assert.throws(
    mappingError({ 'PAY-DETAILS': { discriminator: 'PAY-METHOD', views: { C: 'PAY-AMOUNT' } } }),
    /PAY-AMOUNT is not a view of PAY-DETAILS/,
  );
  assert.throws(mappingError({ 'PAY-DETAILS': { discriminator: 'PAY-METHOD', views: {} } }), /names at least one view/);
  assert.throws(mappingError({ 'PAY-DETAILS': { views: { C: 'PAY-CARD' } } }), /a view choice is/);
  assert.throws(
    () => compileCopybook(src, { mapping: { redefines: { 'PAY-DETAILS': choice }, fields: { 'PAY-METHOD': false } } }),
    /the discriminator PAY-METHOD is left out of JSON/,
  );
});

test("level 88 values become the field's enum in the JSON Schema; VALUE becomes its default", () => {
  const layout = compileCopybook(
    fixed(
      '01 R.',
      '   05 STATUS-CODE PIC X VALUE "A".',
      '      88 IS-ACTIVE VALUE "A".',
      '      88 IS-CLOSED VALUES "C" "X".',
      '   05 GRADE PIC 99.',
      '      88 PASSING VALUE 50 THRU 99.',
    ),
  );
  const schema = layout.jsonSchema() as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(schema.properties.statusCode, { type: 'string', maxLength: 1, enum: ['A', 'C', 'X'], default: 'A' });
  assert.deepEqual(schema.properties.grade!.anyOf, [{ minimum: 50, maximum: 99 }]);
  assert.deepEqual(item(layout.root, 'STATUS-CODE').conditions, [
    { name: 'IS-ACTIVE', values: ['A'], ranges: [] },
    { name: 'IS-CLOSED', values: ['C', 'X'], ranges: [] },
  ]);
});

test('JSON Schema carries types and limits from the pictures', () => {
  const layout = compileCopybook(
    fixed(
      '01 R.',
      '   05 AMT PIC S9(5)V99 COMP-3.',
      '   05 BIG PIC S9(15)V99.',
      '   05 WORD PIC A(4).',
      '   05 N PIC 9(3) COMP-5.',
      '   05 T OCCURS 2 PIC X.',
    ),
    { profile: 'gnucobol' },
  );
  const { properties: p } = layout.jsonSchema() as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(p.amt, { type: 'number', multipleOf: 0.01, minimum: -99999.99, maximum: 99999.99 });
  assert.deepEqual(p.big, { type: 'string', pattern: '^-?\\d{1,15}(\\.\\d{1,2})?$' });
  assert.deepEqual(p.word, { type: 'string', maxLength: 4, pattern: '^[A-Za-z ]*$' });
  assert.deepEqual(p.n, { type: 'integer', minimum: 0, maximum: 65535 });
  assert.deepEqual(p.t, { type: 'array', items: { type: 'string', maxLength: 1 }, maxItems: 2 });
});

test('several records need a choice; a fragment without 01 becomes one record', () => {
  const two = fixed('01 REQ.', '   05 A PIC X.', '01 RESP.', '   05 B PIC 9.');
  assert.match(compileError(two).message, /several records \(REQ, RESP\)/);
  assert.equal(compileCopybook(two, { record: 'RESP' }).name, 'RESP');
  const fragment = compileCopybook(fixed('05 A PIC X(2).', '05 B PIC 9.'), { fileName: 'cust-rec.cpy' });
  assert.deepEqual([fragment.name, fragment.maxLength], ['CUST-REC', 3]);
});

test('bad copybooks fail with file, line and column', async (t) => {
  const cases: Array<[string, string, RegExp, number, number?]> = [
    [
      'missing period',
      fixed('01 R.', '   05 A PIC X(3)', '   05 B PIC 9.'),
      /unexpected "05" \(is the period missing/,
      3,
      11,
    ],
    ['unknown clause', fixed('01 R.', '   05 A PIC X FOO.'), /unexpected "FOO"/, 2, 22],
    ['bad level number', fixed('01 R.', '   50 A PIC X.'), /invalid level number 50/, 2, 11],
    [
      'RENAMES unknown item',
      fixed('01 R.', '   05 A PIC X.', '66 B RENAMES NOPE.'),
      /RENAMES NOPE: no such item in R/,
      3,
      8,
    ],
    [
      'RENAMES before the last item',
      fixed('01 R.', '   05 A PIC X.', '66 B RENAMES A.', '   05 C PIC X.'),
      /level 5 after a level-66 entry: RENAMES entries come after the last item of the record/,
      4,
      11,
    ],
    [
      'RENAMES of a table',
      fixed('01 R.', '   05 A PIC X OCCURS 2.', '66 B RENAMES A.'),
      /RENAMES A: it is a table \(OCCURS\)/,
      3,
      8,
    ],
    [
      'RENAMES THRU backwards',
      fixed('01 R.', '   05 A PIC X.', '   05 C PIC X.', '66 B RENAMES C THRU A.'),
      /C THRU A: A must start and end after C/,
      4,
      8,
    ],
    [
      'RENAMES over a variable table',
      fixed(
        '01 R.',
        '   05 N PIC 9.',
        '   05 T PIC X OCCURS 1 TO 2 DEPENDING ON N.',
        '   05 Z PIC X.',
        '66 B RENAMES N THRU Z.',
      ),
      /RENAMES B: the range holds the OCCURS DEPENDING ON table T/,
      5,
      8,
    ],
    ['P between digits', fixed('01 R.', '   05 A PIC 9(3)P9.'), /P must stand at the left or the right end/, 2, 20],
    [
      'edited picture: Z after 9',
      fixed('01 R.', '   05 A PIC 9ZZ.99.'),
      /Z, \* and floating symbols must stand left of the 9s/,
      2,
      20,
    ],
    ['COMP-1 with a PICTURE', fixed('01 R.', '   05 A PIC S9(4) COMP-1.'), /USAGE COMP-1 takes no PICTURE/, 2, 20],
    ['POINTER with SIGN', fixed('01 R.', '   05 A POINTER SIGN LEADING.'), /SIGN, JUSTIFIED and BLANK/, 2, 11],
    [
      'PROCEDURE-POINTER',
      fixed('01 R.', '   05 A USAGE IS PROCEDURE-POINTER.'),
      /USAGE PROCEDURE-POINTER is not supported/,
      2,
      25,
    ],
    ['edited picture: two signs', fixed('01 R.', '   05 A PIC +ZZ9CR.'), /one sign symbol/, 2, 20],
    ['edited picture: E', fixed('01 R.', '   05 A PIC +9.9E+99.'), /\(E\) are not supported/, 2, 20],
    ['edited picture in COMP-3', fixed('01 R.', '   05 A PIC ZZ9 COMP-3.'), /cannot take an edited picture/, 2, 11],
    ['no picture', fixed('01 R.', '   05 A.'), /A has neither a PICTURE nor subordinate items/, 2, 11],
    [
      'picture on a group',
      fixed('01 R.', '   05 A PIC X.', '      10 B PIC X.'),
      /A has a PICTURE, so it cannot contain B/,
      3,
      14,
    ],
    [
      'level mismatch',
      fixed('01 R.', '   05 A.', '      10 B PIC X.', '   03 C PIC X.'),
      /level 3 does not match the level 5/,
      4,
      11,
    ],
    ['S in alphanumeric', fixed('01 R.', '   05 A PIC SX(3).'), /S and V are only allowed in numeric pictures/, 2, 20],
    ['COMP on PIC X', fixed('01 R.', '   05 A PIC X(4) COMP.'), /USAGE binary needs a numeric picture/, 2, 11],
    ['19-digit binary', fixed('01 R.', '   05 A PIC 9(19) COMP.'), /a binary item holds at most 18 digits/, 2, 11],
    ['SIGN without S', fixed('01 R.', '   05 A PIC 9(3) SIGN LEADING.'), /SIGN needs S in the picture/, 2, 11],
    [
      'JUSTIFIED on numeric',
      fixed('01 R.', '   05 A PIC 9(3) JUST RIGHT.'),
      /JUSTIFIED applies to alphanumeric items only/,
      2,
      11,
    ],
    [
      'BLANK WHEN ZERO on COMP-3',
      fixed('01 R.', '   05 A PIC 9(3) COMP-3 BLANK WHEN ZERO.'),
      /BLANK WHEN ZERO needs an unsigned USAGE DISPLAY item/,
      2,
      11,
    ],
    [
      'REDEFINES not adjacent',
      fixed('01 R.', '   05 A PIC X(4).', '   05 B PIC X.', '   05 C REDEFINES A PIC X(2).'),
      /REDEFINES A: it must name the item just before/,
      4,
      11,
    ],
    [
      'REDEFINES larger',
      fixed('01 R.', '   05 A PIC X(2).', '   05 C REDEFINES A PIC X(3).'),
      /C \(3 bytes\) is larger than the 2-byte A/,
      3,
      11,
    ],
    [
      'VALUE too long',
      fixed('01 R.', '   05 A PIC X(2) VALUE "ABC".'),
      /VALUE of A: the literal is 3 characters long; the item holds 2/,
      2,
      11,
    ],
    [
      'VALUE too many digits',
      fixed('01 R.', '   05 A PIC 9(2) VALUE 123.'),
      /VALUE of A: 123 has too many digits/,
      2,
      11,
    ],
    [
      'VALUE text in numeric',
      fixed('01 R.', '   05 A PIC 9(2) VALUE "12".'),
      /a numeric item needs a numeric literal or ZERO/,
      2,
      11,
    ],
    [
      'VALUE under REDEFINES',
      fixed('01 R.', '   05 A PIC X(2).', '   05 C REDEFINES A PIC 99 VALUE 1.'),
      /VALUE is not allowed in or under a REDEFINES/,
      3,
      11,
    ],
    ['OCCURS on 01', fixed('01 R OCCURS 2.', '   05 A PIC X.'), /OCCURS is not allowed on a record/, 1, 8],
    [
      'ODO counter behind a variable table',
      fixed(
        '01 R.',
        '   05 N PIC 9.',
        '   05 T OCCURS 1 TO 3 DEPENDING ON N PIC X.',
        '   05 M PIC 9.',
        '   05 U OCCURS 1 TO 3 DEPENDING ON M PIC X.',
      ),
      /DEPENDING ON M: the counter must come before every OCCURS DEPENDING ON table of the record \(T precedes it\)/,
      5,
      11,
    ],
    [
      'ODO unknown counter',
      fixed('01 R.', '   05 T OCCURS 1 TO 3 DEPENDING ON NOPE PIC X.'),
      /DEPENDING ON NOPE: no such item/,
      2,
      11,
    ],
    [
      'ODO counter after table',
      fixed('01 R.', '   05 G.', '      10 T OCCURS 1 TO 3 DEPENDING ON N PIC X.', '   05 N PIC 9.'),
      /must be the last item|counter must come before/,
      3,
      14,
    ],
    [
      'ODO counter not numeric',
      fixed('01 R.', '   05 N PIC X.', '   05 T OCCURS 1 TO 3 DEPENDING ON N PIC X.'),
      /counter must be a numeric integer item/,
      3,
      11,
    ],
    ['TO without DEPENDING', fixed('01 R.', '   05 T OCCURS 1 TO 3 PIC X.'), /OCCURS m TO n needs DEPENDING ON/, 2, 16],
    [
      'COPY without a path',
      fixed('COPY OTHER.'),
      /COPY OTHER: copybook not found \(no copybookPath or readCopybook was given\)/,
      1,
      8,
    ],
    ['unclosed literal', fixed('01 R.', '   05 A PIC X(3) VALUE "AB.'), /literal not closed/, 2, 8],
    ['bad indicator', '01234501 R.', /invalid indicator "0" in column 7|expected a level number/, 1],
    [
      'duplicate JSON name',
      fixed('01 R.', '   05 A-B PIC X.', '   05 A--B PIC X.'),
      /both map to the JSON name "aB"/,
      3,
      11,
    ],
    ['88 without item', fixed('88 FLAG VALUE "Y".'), /must follow the item it belongs to/, 1, 8],
    ['no items', fixed('*> nothing'), /declares no data items/, 1],
  ];
  for (const [name, source, message, line, column] of cases) {
    await t.test(name, () => {
      const e = compileError(source);
      assert.match(e.message, message);
      assert.equal(e.fileName, 'bad.cpy');
      assert.equal(e.line, line, `line of: ${e.message}`);
      if (column !== undefined) assert.equal(e.column, column, `column of: ${e.message}`);
      assert.ok(e.message.startsWith(`bad.cpy:${e.line}:${e.column}: `));
    });
  }
});

test('unsupported constructs are marked as such, syntax errors as syntax', () => {
  assert.equal(compileError(fixed('01 R.', '   05 A PROCEDURE-POINTER.')).code, 'COPYBOOK_UNSUPPORTED');
  assert.equal(compileError(fixed('01 R.', '   05 A PIC X FOO.')).code, 'COPYBOOK_SYNTAX');
});

test('property: a discriminated view round-trips, and the bytes are the same with or without the discriminator in JSON', () => {
  const src = fixed(
    '01 R.',
    '   05 KIND PIC 9.',
    '   05 BODY PIC X(10).',
    '   05 AS-NUM REDEFINES BODY PIC S9(7)V99 COMP-3.',
    '   05 AS-TEXT REDEFINES BODY.',
    '      10 T1 PIC X(4).',
    '      10 T2 PIC X(6).',
    '   05 TAIL PIC X(2).',
  );
  const views = { 1: 'AS-NUM', 2: 'AS-TEXT' };
  const text = fc.string({ unit: fc.constantFrom(...'ABCXYZ 019-'), maxLength: 4 }).map((s) => s.trimEnd());
  const view = fc.oneof(
    fc
      .integer({ min: -999_999_999, max: 999_999_999 })
      .map((cents): Record<string, unknown> => ({ asNum: cents / 100 })),
    fc.tuple(text, text).map(([t1, t2]): Record<string, unknown> => ({ asText: { t1, t2 } })),
  );
  fc.assert(
    fc.property(
      fc.constantFrom('zos', 'gnucobol' as const),
      view,
      text.map((s) => s.slice(0, 2).trimEnd()),
      (profile, chosen, tail) => {
        const layout = compileCopybook(src, {
          profile,
          mapping: { redefines: { BODY: { discriminator: 'KIND', views } } },
        });
        const kind = 'asNum' in chosen ? 1 : 2;
        const bytes = layout.encode({ ...chosen, tail });
        assert.deepEqual(layout.decode(bytes), { kind, ...chosen, tail });
        assert.deepEqual(layout.encode({ kind, ...chosen, tail }), bytes);
      },
    ),
    { seed: 7, numRuns: 300 },
  );
});
