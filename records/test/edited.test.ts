/**
 * P scaling and edited pictures beyond what GnuCOBOL can judge (scripts/oracle/cases-edited.ts has its
 * vectors): IBM's published editing examples, COMP-3 with P on hand-made bytes, decode refusals, the options,
 * the JSON Schema, and decode(encode(x)) = x for every class of picture.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  compileCopybook,
  CopybookError,
  RecordDecodeError,
  RecordEncodeError,
  type CompileOptions,
} from '../src/index.ts';
import { layoutTypeScript } from '../src/typescript.ts';

const one = (picture: string, options: CompileOptions = {}, clauses = '') =>
  compileCopybook(`       01 R.\n          05 F PIC ${picture}${clauses}.\n`, { profile: 'gnucobol', ...options });

const edit = (picture: string, value: number | string, options: CompileOptions = {}) =>
  one(picture, options).encode({ f: value }).toString('latin1');

/**
 * IBM Enterprise COBOL for z/OS Language Reference, "PICTURE clause editing": the example tables of fixed
 * insertion, floating insertion and zero suppression editing (picture, value, edited result). Where IBM's value
 * has more decimals than the picture (the MOVE truncates them), the value here stops at the kept decimals:
 * the codec refuses to truncate.
 */
const IBM_EXAMPLES: Array<[picture: string, value: number | string, result: string]> = [
  // fixed insertion
  ['-999.99', -123.45, '-123.45'],
  ['-999.99', 123.45, ' 123.45'],
  ['999.99+', 123.45, '123.45+'],
  ['+9999.99', -123.45, '-0123.45'],
  ['9999.99CR', 123.45, '0123.45  '],
  ['9999.99DB', -123.45, '0123.45DB'],
  // floating insertion
  ['$$$$.99', 0.12, '   $.12'],
  ['$$$9.99', 0.12, '  $0.12'],
  ['$,$$$,999.99', 1234.56, '   $1,234.56'],
  ['+,+++,999.99', -123456.78, ' -123,456.78'],
  ['$$,$$$,$$$.99CR', -1234567, '$1,234,567.00CR'],
  ['++,+++,+++.+++', 0, '              '],
  // zero suppression and replacement
  ['****.**', 0, '****.**'],
  ['ZZZZ.ZZ', 0, '       '],
  ['ZZZZ.99', 0, '    .00'],
  ['****.99', 0, '****.00'],
  ['ZZ99.99', 0, '  00.00'],
  ['Z,ZZZ.ZZ+', 123.45, '  123.45+'],
  ['*,***.**+', -123.45, '**123.45-'],
  ['**,***,***.**', 12345678.9, '12,345,678.90'],
  ['$Z,ZZZ,ZZZ.ZZCR', 12345.67, '$   12,345.67  '],
  ['$B*,***,***.**BBDB', -12345.67, '$ ***12,345.67  DB'],
];

describe("IBM's editing examples", () => {
  for (const [picture, value, result] of IBM_EXAMPLES) {
    test(`PIC ${picture}: ${value} edits to "${result}" and de-edits back`, () => {
      const layout = one(picture);
      const bytes = layout.encode({ f: value });
      assert.equal(bytes.toString('latin1'), result);
      assert.deepEqual(layout.decode(bytes), { f: value });
    });
  }
});

test('a fixed sign before the currency sign: a space or - (cobc 3.1.2 writes the symbol whatever the sign)', () => {
  assert.equal(edit('-$ZZ9', 2), ' $  2');
  assert.equal(edit('-$ZZ9', -2), '-$  2');
  assert.equal(edit('+$ZZ9', 2), '+$  2');
  assert.equal(edit('+$ZZ9', -250), '-$250');
  assert.deepEqual(one('-$ZZ9').decode(Buffer.from('-$  2', 'latin1')), { f: -2 });
});

test('simple insertion: B, 0 and / stand where written; in the suppressed zeros they become the fill', () => {
  assert.equal(edit('99B99B99', 123456), '12 34 56');
  assert.equal(edit('990099', 1234), '120034');
  assert.equal(edit('99/99/99', 311226), '31/12/26');
  assert.equal(edit('ZZ/ZZ/Z9', 5), '       5');
  assert.equal(edit('**/**/*9', 1205), '***12/05');
  assert.equal(edit('ZZBZZ9', 1234), ' 1 234');
});

describe('P scaling', () => {
  const cases: Array<[picture: string, value: number | string, hex: string]> = [
    ['S9(3)PPP COMP-3', 987000, '987c'],
    ['S9(3)PPP COMP-3', -5000, '005d'],
    ['9(3)PPP COMP-3', 1000, '001f'],
    ['SVPP9(2) COMP-3', 0.0042, '042c'],
    ['SVPP9(2) COMP-3', -0.0099, '099d'],
    ['PPP9(3) COMP-3', 0.000123, '123f'],
    ['S9(14)P(3) COMP-3', '12345678901234000', '012345678901234c'],
    ['S9(4)PP COMP', 0, '0000'],
    ['S9(4)PP COMP', -999900, 'd8f1'],
    ['9(3)PPP', 123000, '313233'],
    ['PPP9(3)', 0.000999, '393939'],
    ['SVPP9', -0.009, '79'],
  ];
  for (const [picture, value, hex] of cases) {
    test(`PIC ${picture}: ${value} is stored as ${hex} and read back`, () => {
      const layout = one(
        picture.replace(/ .*/, ''),
        {},
        picture.includes(' ') ? picture.slice(picture.indexOf(' ')) : '',
      );
      const bytes = layout.encode({ f: value });
      assert.equal(bytes.toString('hex'), hex);
      assert.deepEqual(layout.decode(bytes), { f: value });
    });
  }

  test('encode refuses digits in the P positions, too many digits and too many decimals, naming the path', () => {
    const r = compileCopybook(
      '       01 R.\n          05 G.\n             10 A PIC 9(3)PPP COMP-3.\n             10 B PIC SVPP9.\n',
      { profile: 'gnucobol' },
    );
    assert.throws(
      () => r.encode({ g: { a: 123400 } }),
      (e: unknown) =>
        e instanceof RecordEncodeError &&
        e.path === 'g.a' &&
        /123400 does not fit PIC 9\(3\)P\(3\): its P positions hold the last 3 digit\(s\), which must be zero/.test(
          e.message,
        ),
    );
    assert.throws(
      () => r.encode({ g: { a: 1000000 } }),
      (e: unknown) => e instanceof RecordEncodeError && e.path === 'g.a' && /at most 999000/.test(e.message),
    );
    assert.throws(
      () => r.encode({ g: { b: 0.01 } }),
      (e: unknown) => e instanceof RecordEncodeError && e.path === 'g.b' && /at most ±0\.009/.test(e.message),
    );
    assert.throws(
      () => r.encode({ g: { b: 0.0015 } }),
      (e: unknown) => e instanceof RecordEncodeError && e.path === 'g.b' && /4 decimal places/.test(e.message),
    );
  });

  test('the JSON Schema says multiples and ranges; more than 15 digits with P is a decimal string', () => {
    const r = compileCopybook(
      '       01 R.\n          05 A PIC S9(3)PPP.\n          05 B PIC PPP9(3).\n          05 C PIC 9(14)P(3).\n',
      { profile: 'gnucobol' },
    );
    const props = r.jsonSchema().properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.a, { type: 'integer', multipleOf: 1000, minimum: -999000, maximum: 999000 });
    assert.deepEqual(props.b, { type: 'number', multipleOf: 10 ** -6, minimum: 0, maximum: 0.000999 });
    assert.equal(props.c!.type, 'string');
    assert.deepEqual(r.decode(r.encode({ c: '99999999999999000' })), { a: 0, b: 0, c: '99999999999999000' });
  });
});

describe('decode refuses bytes that editing cannot give, naming the offset', () => {
  const refuses = (picture: string, text: string, offset: number, reason: RegExp, clauses = '') => {
    const layout = compileCopybook(`       01 R.\n          05 X PIC XX.\n          05 F PIC ${picture}${clauses}.\n`, {
      profile: 'gnucobol',
    });
    assert.throws(
      () => layout.decode(Buffer.from(`ab${text}`, 'latin1')),
      (e: unknown) =>
        e instanceof RecordDecodeError && e.offset === offset && e.field === 'F' && reason.test(e.message),
    );
  };
  test('a zero where suppression writes a space', () => refuses('ZZ9.99', ' 01.00', 3, /expected " " in "  1\.00"/));
  test('a letter in a digit position', () => refuses('999.99', '12A.00', 4, /byte 0x41 at position 3/));
  test('a floating $ away from the first digit', () => refuses('$$$9.99', '$ 12.00', 2, /expected " "/));
  test('CR half written', () => refuses('999CR', '123CX', 6, /position 5/));
  test('a minus sign with a zero value', () => refuses('-ZZ9', '-  0', 2, /position 1/));
  test('spaces without BLANK WHEN ZERO', () => refuses('ZZ9.99', '      ', 4, /position 3/));
  test('an insertion character replaced', () =>
    refuses('XX/XX', '12-34', 4, /byte 0x2d where PIC X\(2\)\/X\(2\) inserts "\/"/));

  test('all spaces are zero under BLANK WHEN ZERO, and in an all-Z picture', () => {
    assert.deepEqual(one('ZZ9.99', {}, ' BLANK WHEN ZERO').decode(Buffer.from('      ')), { f: 0 });
    assert.deepEqual(one('ZZZ.ZZ').decode(Buffer.from('      ')), { f: 0 });
    assert.equal(one('ZZ9.99', {}, ' BLANK WHEN ZERO').encode({ f: 0 }).toString('latin1'), '      ');
  });
});

describe('encode refuses what the picture cannot show', () => {
  const refuses = (picture: string, value: unknown, reason: RegExp) =>
    assert.throws(
      () => one(picture).encode({ f: value }),
      (e: unknown) => e instanceof RecordEncodeError && e.path === 'f' && reason.test(e.message),
    );
  test('an integer part too long (COBOL would truncate it)', () => refuses('ZZ9.99', 1000, /at most 999\.99/));
  test('a negative value without a sign symbol', () =>
    refuses('ZZ9.99', -1, /negative value -1 into an unsigned field/));
  test('more decimals than the picture', () => refuses('ZZ9.99', 1.005, /3 decimal places/));
  test('a string too long for the data positions', () =>
    refuses('XX/XX', 'ABCDE', /longer than the 4 PIC X\(2\)\/X\(2\) holds/));
  test('a number for an alphanumeric-edited item', () => refuses('XX/XX', 12, /expected a string, got a number/));
});

describe('options', () => {
  test('currencySign: the picture and the data use that character', () => {
    assert.equal(edit('£££9.99', 1.5, { currencySign: '£', encoding: 'latin1' }), '  £1.50');
    assert.equal(edit('£ZZ9', 12, { currencySign: '£', encoding: 'latin1' }), '£ 12');
    assert.throws(
      () => one('ZZ9', { currencySign: 'Z' }),
      (e: unknown) => e instanceof CopybookError && /currency sign "Z" must be one character/.test(e.message),
    );
  });
  test('decimalPointIsComma: the comma is the point, the period groups', () => {
    assert.equal(edit('ZZ.ZZ9,99', 1234.5, { decimalPointIsComma: true }), ' 1.234,50');
    assert.equal(edit('ZZ,ZZ9.99', 1234.5), ' 1,234.50');
  });
  test('EBCDIC: the edited characters go through the code page', () => {
    const bytes = one('$$$9.99CR', { profile: 'zos' }).encode({ f: -1.5 });
    assert.equal(bytes.toString('hex'), '40405bf14bf5f0c3d9');
  });
});

describe('layout, VALUE and JSON Schema', () => {
  const r = compileCopybook(
    [
      '       01 R.',
      '          05 A PIC ZZ,ZZ9.99-.',
      "          05 B PIC XX/XX VALUE '12/34'.",
      '          05 C PIC $$$9.99 VALUE 1.5.',
      '          05 D PIC -(15)9.99.',
      '          05 E PIC 99B99.',
    ].join('\n'),
    { profile: 'gnucobol' },
  );
  test('lengths are the positions of the picture', () => {
    assert.deepEqual(
      r.root.children!.map((c) => [c.cobolName, c.offset, c.length, c.kind, c.picture]),
      [
        ['A', 0, 10, 'numeric', 'Z(2),Z(2)9.9(2)-'],
        ['B', 10, 5, 'alphanumeric', 'X(2)/X(2)'],
        ['C', 15, 7, 'numeric', '$(3)9.9(2)'],
        ['D', 22, 19, 'numeric', '-(15)9.9(2)'],
        ['E', 41, 5, 'numeric', '9(2)B9(2)'],
      ],
    );
  });
  test('encode starts from the VALUEs as written and zero edited', () => {
    assert.equal(r.encode({}).toString('latin1'), '     0.00 12/34  $1.50               0.0000 00');
    assert.deepEqual(r.decode(r.encode({})), { a: 0, b: '1234', c: 1.5, d: '0', e: 0 });
  });
  test('the JSON Schema: numbers by digits and scale, strings by data positions', () => {
    const props = r.jsonSchema().properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.a, { type: 'number', multipleOf: 0.01, minimum: -99999.99, maximum: 99999.99 });
    assert.deepEqual(props.b, { type: 'string', maxLength: 4 });
    assert.deepEqual(props.c, { type: 'number', multipleOf: 0.01, minimum: 0, maximum: 999.99, default: 1.5 });
    assert.equal(props.d!.type, 'string');
    assert.deepEqual(props.e, { type: 'integer', minimum: 0, maximum: 9999 });
  });
});

test('TypeScript types: numeric-edited and P-scaled items are numbers (strings beyond 15 digits), alphanumeric-edited strings', () => {
  const layout = compileCopybook(
    [
      '       01 TYPED-REC.',
      '          05 AMOUNT PIC $$$,$$9.99CR.',
      '          05 BIG    PIC -(16)9.99.',
      '          05 THOUS  PIC 9(3)PPP.',
      "          05 DAY    PIC XX/XX/XX VALUE '31/12/26'.",
    ].join('\n'),
    { profile: 'gnucobol' },
  );
  assert.equal(
    layoutTypeScript(layout.jsonSchema()),
    '/** TYPED-REC */\nexport interface TypedRec {\n  amount: number;\n  big: string;\n  thous: number;\n  day: string;\n}\n',
  );
});

/** One picture of each class, with the digits, scale and sign its values have. */
const PICTURES: Array<{ picture: string; digits: number; scale: number; signed: boolean; clauses?: string }> = [
  { picture: 'ZZZ9', digits: 4, scale: 0, signed: false },
  { picture: 'ZZ,ZZ9.99', digits: 7, scale: 2, signed: false },
  { picture: 'ZZZ.ZZ', digits: 5, scale: 2, signed: false },
  { picture: '***,**9.99', digits: 8, scale: 2, signed: false },
  { picture: '****.**', digits: 6, scale: 2, signed: false },
  { picture: '$ZZ,ZZ9.99', digits: 7, scale: 2, signed: false },
  { picture: '$$$,$$9.99', digits: 7, scale: 2, signed: false },
  { picture: '$$$$.$$', digits: 5, scale: 2, signed: false },
  { picture: '+ZZZ9', digits: 4, scale: 0, signed: true },
  { picture: 'ZZZ9-', digits: 4, scale: 0, signed: true },
  { picture: '++++9', digits: 4, scale: 0, signed: true },
  { picture: '----9.99', digits: 6, scale: 2, signed: true },
  { picture: '++,+++.++', digits: 6, scale: 2, signed: true },
  { picture: 'ZZZ9.99CR', digits: 6, scale: 2, signed: true },
  { picture: '$**,**9.99DB', digits: 7, scale: 2, signed: true },
  { picture: '99B99/990', digits: 6, scale: 0, signed: false },
  { picture: 'ZZ9.99', digits: 5, scale: 2, signed: false, clauses: ' BLANK WHEN ZERO' },
  { picture: 'ZZ9V99', digits: 5, scale: 2, signed: false },
  { picture: 'ZZ9PP', digits: 3, scale: -2, signed: false },
  { picture: '-$ZZ9', digits: 3, scale: 0, signed: true },
  { picture: '-(16)9.99', digits: 18, scale: 2, signed: true },
  { picture: 'S9(3)PPP', digits: 3, scale: -3, signed: true },
  { picture: 'S9(3)PPP', digits: 3, scale: -3, signed: true, clauses: ' COMP-3' },
  { picture: 'S9(4)PP', digits: 4, scale: -2, signed: true, clauses: ' COMP' },
  { picture: 'SVPP9(3)', digits: 3, scale: 5, signed: true, clauses: ' COMP-3' },
  { picture: 'PP9(4)', digits: 4, scale: 6, signed: false, clauses: ' COMP-5' },
];

/** The decimal text of m × 10^-scale, as decode returns it (canonical: no trailing zeros after the point). */
function decimalOf(m: bigint, scale: number): string {
  const negative = m < 0n;
  let s = (negative ? -m : m).toString();
  if (scale < 0) s += '0'.repeat(-scale);
  else if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    const frac = s.slice(s.length - scale).replace(/0+$/, '');
    s = frac === '' ? s.slice(0, s.length - scale) : `${s.slice(0, s.length - scale)}.${frac}`;
  }
  return negative && s !== '0' ? `-${s}` : s;
}

for (const p of PICTURES) {
  test(`property: PIC ${p.picture}${p.clauses ?? ''}: decode(encode(x)) = x, and decode takes only what encode writes`, () => {
    const layout = one(p.picture, {}, p.clauses ?? '');
    const limit = 10n ** BigInt(p.digits) - 1n;
    const mantissa = fc.bigInt({ min: p.signed ? -limit : 0n, max: limit });
    const total = p.digits + Math.max(0, -p.scale);
    fc.assert(
      fc.property(mantissa, (m) => {
        const text = decimalOf(m, p.scale);
        const json = total > 15 ? text : Number(text);
        const bytes = layout.encode({ f: text });
        assert.deepEqual(layout.decode(bytes), { f: json });
        assert.deepEqual(layout.encode({ f: json }), bytes);
      }),
      { numRuns: 150 },
    );
    // any bytes either decode to a value that encodes to those very bytes, or are refused at an offset inside
    const chars = fc.constantFrom(...' 0123456789$*+-.,/CRDB');
    fc.assert(
      fc.property(fc.array(chars, { minLength: layout.maxLength, maxLength: layout.maxLength }), (cs) => {
        if (p.clauses !== undefined && p.clauses.trim() !== 'BLANK WHEN ZERO') return;
        const bytes = Buffer.from(cs.join(''), 'latin1');
        let decoded;
        try {
          decoded = layout.decode(bytes);
        } catch (e) {
          assert.ok(e instanceof RecordDecodeError, String(e));
          assert.ok(e.offset >= 0 && e.offset < bytes.length);
          return;
        }
        assert.deepEqual(layout.encode(decoded), bytes);
      }),
      { numRuns: 150 },
    );
  });
}
