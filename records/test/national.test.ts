/**
 * PIC N / USAGE NATIONAL: UTF-16BE, two bytes a character, national space NX'0020'. GnuCOBOL 3.1.2 does not
 * store national items as UTF-16 (see scripts/oracle/README.md), so the bytes are judged by Node's own
 * UTF-16 codecs, written by others: Buffer's 'utf16le' with the byte pairs swapped, and TextDecoder('utf-16be').
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, CopybookError, RecordDecodeError, RecordEncodeError } from '../src/index.ts';
import { layoutTypeScript } from '../src/typescript.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** UTF-16BE bytes of `s` by Node's Buffer (little-endian, swapped), padded to `chars` with national spaces. */
function utf16be(s: string, chars: number, right = false): string {
  const padded = right ? s.padStart(chars, ' ') : s.padEnd(chars, ' ');
  return hex(Buffer.from(padded, 'utf16le').swap16());
}
const beDecoder = new TextDecoder('utf-16be', { fatal: true });

function refused(source: string): CopybookError {
  try {
    compileCopybook(source);
  } catch (e) {
    assert.ok(e instanceof CopybookError, `expected CopybookError, got ${String(e)}`);
    return e;
  }
  assert.fail('compiled');
}

const REC = fixed(
  '01 NAT-REC.',
  '   05 NAME      PIC N(6).',
  '   05 CODE-R    PIC N(3) USAGE NATIONAL JUSTIFIED RIGHT.',
  '   05 CITY      PIC N(4) USAGE IS NATIONAL.',
  '   05 TAG       PIC X(2).',
);

test("PIC N encodes as UTF-16BE padded with NX'0020', as Node's UTF-16 codec writes it", () => {
  const layout = compileCopybook(REC);
  assert.equal(layout.maxLength, 12 + 6 + 8 + 2);
  const json = { name: 'Zoë', codeR: 'ab', city: '東京', tag: 'OK' };
  const out = layout.encode(json);
  assert.equal(hex(out.subarray(0, 12)), utf16be('Zoë', 6));
  assert.equal(hex(out.subarray(0, 12)), '005a006f00eb002000200020');
  assert.equal(hex(out.subarray(12, 18)), utf16be('ab', 3, true));
  assert.equal(hex(out.subarray(18, 26)), '67714eac00200020');
  assert.equal(beDecoder.decode(out.subarray(18, 26)), '東京  ');
  assert.equal(hex(out.subarray(26)), 'd6d2'); // TAG stays cp1140
  assert.deepEqual(layout.decode(out), json);
});

test('decode trims national spaces only (not U+3000, not single-byte 0x20 pairs)', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC N(3).'));
  assert.deepEqual(layout.decode(Buffer.from('004130000020', 'hex')), { n: 'A\u3000' });
  assert.deepEqual(layout.decode(Buffer.from('004120202020', 'hex')), { n: 'A\u2020\u2020' });
  assert.deepEqual(layout.decode(Buffer.from('002000200020', 'hex')), { n: '' });
});

test('a character beyond U+FFFF takes two characters of the field; one that would split is refused', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 N PIC N(2).'));
  assert.equal(hex(layout.encode({ n: '😀' })), utf16be('😀', 2));
  assert.equal(hex(layout.encode({ n: '😀' })), 'd83dde00');
  assert.deepEqual(layout.decode(layout.encode({ n: '😀' })), { n: '😀' });
  const tooLong = (() => {
    try {
      layout.encode({ n: 'a😀' });
    } catch (e) {
      return e as RecordEncodeError;
    }
    assert.fail('encoded');
  })();
  assert.ok(tooLong instanceof RecordEncodeError);
  assert.equal(
    tooLong.message,
    'n: string of 3 UTF-16 code units is longer than the 2 national characters the field holds',
  );
  assert.deepEqual(tooLong.limit, { kind: 'length', max: 2 });
  assert.throws(() => layout.encode({ n: '\ud83d' }), {
    message: 'n: unpaired surrogate at position 0: not UTF-16 text',
  });
  assert.throws(() => layout.encode({ n: 7 }), { message: 'n: expected a string, got a number' });
  // a record cut between the two halves of a pair
  const e = (() => {
    try {
      layout.decode(Buffer.from('0041d83d', 'hex'));
    } catch (err) {
      return err as RecordDecodeError;
    }
    assert.fail('decoded');
  })();
  assert.ok(e instanceof RecordDecodeError);
  assert.equal(e.message, 'offset 2 (N): unpaired UTF-16 surrogate 0xd83d in a national item');
});

test('VALUE with N"…", NX"…", alphanumeric literals and figurative constants', () => {
  const source = fixed(
    '01 R.',
    '   05 A PIC N(3) VALUE N"Ab".',
    "   05 B PIC N(2) VALUE NX'00e96771'.",
    "   05 C PIC N(2) VALUE 'x'.",
    '   05 D PIC N(2) VALUE ZERO.',
    '   05 E PIC N(1) VALUE HIGH-VALUES.',
    "   05 F PIC N(4) VALUE N'it''s' JUSTIFIED RIGHT.",
    '   05 G PIC N(1).',
  );
  const layout = compileCopybook(source);
  const out = layout.encode({});
  assert.equal(
    hex(out),
    utf16be('Ab', 3) + '00e96771' + utf16be('x', 2) + '00300030' + 'ffff' + utf16be("it's", 4) + '0020',
  );
  assert.deepEqual(layout.decode(out), { a: 'Ab', b: 'é東', c: 'x', d: '00', e: '\uffff', f: "it's", g: '' });
  const schema = layout.jsonSchema() as { properties: Record<string, unknown> };
  assert.deepEqual(schema.properties.a, { type: 'string', maxLength: 3, default: 'Ab' });
  assert.deepEqual(schema.properties.b, { type: 'string', maxLength: 2, default: 'é東' });
  assert.equal(layout.root.children![0]!.value, 'Ab');
});

test('bad national literals and items are refused with file, line and column', () => {
  const nx = refused(fixed('01 R.', '   05 A PIC N(2) VALUE NX"0041F".'));
  assert.equal(nx.message, 'copybook.cpy:2:31: NX literal needs a multiple of four hex digits');
  const long = refused(fixed('01 R.', '   05 A PIC N(2) VALUE N"abc".'));
  assert.equal(long.message, 'copybook.cpy:2:11: VALUE of A: the literal is 3 characters long; the item holds 2');
  const hexLit = refused(fixed('01 R.', '   05 A PIC N(2) VALUE X"0041".'));
  assert.match(hexLit.reason, /a hexadecimal literal cannot initialise a national item/);
  const lone = refused(fixed('01 R.', '   05 A PIC N(2) VALUE NX"D800".'));
  assert.equal(lone.reason, 'VALUE of A: unpaired surrogate at position 0: not UTF-16 text');
  const decimal = refused(fixed('01 R.', '   05 A PIC S9(3) USAGE NATIONAL.'));
  assert.equal(decimal.code, 'COPYBOOK_SYNTAX');
  assert.equal(decimal.message, 'copybook.cpy:2:11: a signed national decimal item needs SIGN SEPARATE (PIC S9(3))');
  assert.equal(
    refused(fixed('01 R.', '   05 A PIC X(3) NATIONAL.')).reason,
    'USAGE NATIONAL needs PIC N, not PIC X(3)',
  );
  assert.equal(
    refused(fixed('01 R.', '   05 A PIC N(3) COMP-3.')).reason,
    'PIC N needs USAGE NATIONAL, not packed-decimal',
  );
  assert.equal(refused(fixed('01 R.', '   05 A PIC N(2)X.')).reason, 'PIC N(2)X: N cannot be mixed with other symbols');
  assert.equal(
    refused(fixed('01 R.', '   05 X PIC X(2) VALUE N"AB".')).reason,
    'VALUE of X: a national literal (N"…", NX"…") initialises PIC N items only',
  );
  const group = refused(fixed('01 R.', '   05 G USAGE NATIONAL.', '      10 A PIC X(2).'));
  assert.equal(group.message, 'copybook.cpy:3:14: USAGE NATIONAL needs PIC N, not PIC X(2)');
});

test('a group of USAGE NATIONAL: its PIC N items are national; the layout shows it', () => {
  const source = fixed(
    '01 R.',
    '   05 G USAGE NATIONAL.',
    '      10 A PIC N(2).',
    '      10 B PIC N.',
    '   05 C PIC X.',
  );
  const layout = compileCopybook(source);
  const g = layout.root.children![0]!;
  assert.equal(g.usage, 'national');
  assert.deepEqual(
    g.children!.map((c) => [c.cobolName, c.offset, c.length, c.kind, c.usage, c.picture]),
    [
      ['A', 0, 4, 'national', 'national', 'N(2)'],
      ['B', 4, 2, 'national', 'national', 'N'],
    ],
  );
  assert.equal(hex(layout.encode({ g: { a: 'é', b: 'Ω' } })), utf16be('é', 2) + utf16be('Ω', 1) + '40');
  assert.match(layoutTypeScript(layout.jsonSchema()), /a: string;/);
});

test("property: decode(encode(s)) = s for any well-formed UTF-16 text, and the bytes are TextDecoder's", () => {
  const layout = compileCopybook(fixed('01 R.', '   05 L PIC N(8).', '   05 R PIC N(8) JUSTIFIED RIGHT.'));
  // code points of every plane; strings that fit in 8 code units, without trailing (or, justified, leading) spaces
  const text = fc
    .array(
      fc.integer({ min: 0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff),
      { maxLength: 8 },
    )
    .map((cps) => String.fromCodePoint(...cps))
    .filter((s) => s.length <= 8);
  fc.assert(
    fc.property(text, text, (l, r) => {
      const left = l.replace(/ +$/, '');
      const right = r.replace(/^ +/, '');
      const out = layout.encode({ l: left, r: right });
      assert.deepEqual(layout.decode(out), { l: left, r: right });
      assert.equal(beDecoder.decode(out.subarray(0, 16)), left.padEnd(8, ' '));
      assert.equal(beDecoder.decode(out.subarray(16)), right.padStart(8, ' '));
    }),
    { numRuns: 500 },
  );
});

// IBM, Enterprise COBOL for z/OS 6.4 Programming Guide, "Examples: numeric data and internal representation"
const IBM_NATIONAL_DECIMAL = fixed(
  '01 R.',
  '   05 U PIC 9999 NATIONAL.',
  '   05 L PIC S9999 NATIONAL SIGN LEADING SEPARATE.',
  '   05 T PIC S9999 NATIONAL SIGN TRAILING SEPARATE.',
);

test("national decimal: the bytes of IBM's published examples, both ways", () => {
  const layout = compileCopybook(IBM_NATIONAL_DECIMAL);
  const vectors: Array<[{ u: number; l: number; t: number }, string]> = [
    [{ u: 1234, l: 1234, t: 1234 }, '0031003200330034' + '002b0031003200330034' + '0031003200330034002b'],
    [{ u: 1234, l: -1234, t: -1234 }, '0031003200330034' + '002d0031003200330034' + '0031003200330034002d'],
  ];
  for (const [json, bytes] of vectors) {
    assert.equal(hex(layout.encode(json)), bytes);
    assert.deepEqual(layout.decode(Buffer.from(bytes, 'hex')), json);
  }
  assert.deepEqual(
    layout.root.children!.map((c) => [c.offset, c.length, c.usage, c.kind]),
    [
      [0, 8, 'national', 'numeric'],
      [8, 10, 'national', 'numeric'],
      [18, 10, 'national', 'numeric'],
    ],
  );
});

test('national decimal: scale, wide pictures as strings, VALUE, range and bad bytes', () => {
  const source = fixed(
    '01 R.',
    '   05 P PIC S9(3)V99 NATIONAL SIGN TRAILING SEPARATE VALUE -1.5.',
    '   05 W PIC 9(17)V9 NATIONAL.',
  );
  const layout = compileCopybook(source);
  const out = layout.encode({ w: '12345678901234567.8' });
  assert.equal(hex(out.subarray(0, 12)), hex(Buffer.from('00150-', 'utf16le').swap16()));
  assert.deepEqual(layout.decode(out), { p: -1.5, w: '12345678901234567.8' });
  assert.throws(() => layout.encode({ p: 1000 }), {
    message: 'p: 1000 has too many digits for PIC S9(3)V9(2) (at most ±999.99)',
  });
  const schema = layout.jsonSchema() as { properties: Record<string, unknown> };
  assert.deepEqual(schema.properties.p, {
    type: 'number',
    multipleOf: 0.01,
    minimum: -999.99,
    maximum: 999.99,
    default: -1.5,
  });
  const bad = Buffer.from(out);
  bad[3] = 0x41;
  assert.throws(() => layout.decode(bad), { message: 'offset 2 (P): invalid national digit 0x0041' });
  const badSign = Buffer.from(out);
  badSign[11] = 0x20;
  assert.throws(() => layout.decode(badSign), {
    message: "offset 10 (P): invalid national sign 0x0020 (expected NX'002B' or NX'002D')",
  });
  // LOW-VALUES and HIGH-VALUES follow emptyNumeric; national spaces are not single-byte spaces, so stay errors
  const nullable = compileCopybook(source, { emptyNumeric: 'null' });
  assert.deepEqual(nullable.decode(Buffer.alloc(out.length)), { p: null, w: null });
  assert.equal(hex(nullable.encode({ p: null }).subarray(0, 12)), '00'.repeat(12));
  assert.throws(() => nullable.decode(Buffer.alloc(out.length, 0x40)), {
    message: 'offset 0 (P): invalid national digit 0x4040',
  });
});

test('property: national decimal round trips every value of its picture', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 18 }),
      fc.integer({ min: 0, max: 4 }),
      fc.boolean(),
      fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }),
      fc.boolean(),
      (digits, scaleWish, leading, magnitude, negative) => {
        const scale = Math.min(scaleWish, digits);
        const pic = `S9(${digits - scale || 1})${scale > 0 ? `V9(${scale})` : ''}`;
        const total = (digits - scale || 1) + scale;
        const layout = compileCopybook(
          fixed('01 R.', `   05 N PIC ${pic} NATIONAL SIGN ${leading ? 'LEADING' : 'TRAILING'} SEPARATE.`),
        );
        const n = magnitude % 10n ** BigInt(total);
        const text = n.toString().padStart(scale + 1, '0');
        const value = `${negative && n !== 0n ? '-' : ''}${scale > 0 ? `${text.slice(0, -scale)}.${text.slice(-scale)}` : text}`;
        const out = layout.encode({ n: value });
        const digitsText = n.toString().padStart(total, '0');
        const sign = negative && n !== 0n ? '-' : '+';
        assert.equal(beDecoder.decode(out), leading ? sign + digitsText : digitsText + sign);
        const [int = '', frac = ''] = value.replace('-', '').split('.');
        const canonical = `${value.startsWith('-') ? '-' : ''}${int.replace(/^0+(?=\d)/, '')}${frac.replace(/0+$/, '') ? `.${frac.replace(/0+$/, '')}` : ''}`;
        assert.deepEqual(layout.decode(out), { n: total > 15 ? canonical : Number(value) });
      },
    ),
    { numRuns: 300 },
  );
});
