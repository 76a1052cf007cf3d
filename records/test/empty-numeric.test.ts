/**
 * Numeric items holding only LOW-VALUES, HIGH-VALUES or spaces: the emptyNumeric option and the mapping's
 * per-item policies, in every numeric usage. (Numeric-edited pictures are another branch's: when they land,
 * their blank field is a value under BLANK WHEN ZERO and needs its own case here.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  compileCopybook,
  MappingError,
  RecordDecodeError,
  RecordEncodeError,
  type CompileOptions,
} from '../src/index.ts';
import { layoutTypeScript } from '../src/typescript.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fill = (byte: number, n: number) => Buffer.alloc(n, byte).toString('hex');

// one item of each numeric usage: zoned 5, zoned signed 4, packed 3, COMP 2, COMP-5 2 bytes (zos: 2/4/8)
const USAGES = fixed(
  '01 USAGE-REC.',
  '   05 ZONED     PIC 9(5).',
  '   05 ZONED-S   PIC S9(2)V99.',
  '   05 PACKED    PIC S9(5) COMP-3.',
  '   05 BIN       PIC 9(4) COMP.',
  '   05 NATIVE    PIC 9(4) COMP-5.',
);
const LENGTHS = [5, 4, 3, 2, 2];
const KEYS = ['zoned', 'zonedS', 'packed', 'bin', 'native'];

/** A record with every item filled with `byte`. */
const filled = (byte: number) =>
  Buffer.alloc(
    LENGTHS.reduce((a, b) => a + b),
    byte,
  );

function decodeError(layout: { decode(b: Uint8Array): unknown }, bytes: Buffer): RecordDecodeError {
  try {
    layout.decode(bytes);
  } catch (e) {
    assert.ok(e instanceof RecordDecodeError, `expected RecordDecodeError, got ${String(e)}`);
    return e;
  }
  assert.fail('decoded without error');
}

function encodeError(layout: { encode(j: unknown): unknown }, json: unknown): RecordEncodeError {
  try {
    layout.encode(json);
  } catch (e) {
    assert.ok(e instanceof RecordEncodeError, `expected RecordEncodeError, got ${String(e)}`);
    return e;
  }
  assert.fail(`encoded ${JSON.stringify(json)} without error`);
}

test('default: LOW-VALUES, HIGH-VALUES and spaces in a zoned item are decode errors, as before', () => {
  const layout = compileCopybook(USAGES);
  assert.equal(decodeError(layout, filled(0x00)).message, 'offset 0 (ZONED): invalid digit 0x00 in a zoned decimal');
  assert.equal(decodeError(layout, filled(0xff)).message, 'offset 0 (ZONED): invalid digit 0xff in a zoned decimal');
  assert.equal(decodeError(layout, filled(0x40)).message, 'offset 0 (ZONED): invalid digit 0x40 in a zoned decimal');
});

test('null: every usage decodes each filler to null, except where the filler is a value of the item', () => {
  const layout = compileCopybook(USAGES, { emptyNumeric: 'null' });
  // X'0000' is binary zero; COMP-5 takes any two bytes (X'FFFF' = 65535, X'4040' = 16448)
  assert.deepEqual(layout.decode(filled(0x00)), { zoned: null, zonedS: null, packed: null, bin: 0, native: 0 });
  assert.deepEqual(layout.decode(filled(0xff)), { zoned: null, zonedS: null, packed: null, bin: null, native: 65535 });
  // X'4040' = 16448 is beyond PIC 9(4) COMP, so spaces there are empty
  assert.deepEqual(layout.decode(filled(0x40)), { zoned: null, zonedS: null, packed: null, bin: null, native: 16448 });
});

test('zero: the fillers decode to zero, as the item decodes zero (a string beyond 15 digits)', () => {
  const source = fixed('01 R.', '   05 SMALL PIC S9(3)V99 COMP-3.', '   05 WIDE PIC 9(16)V99.');
  const layout = compileCopybook(source, { emptyNumeric: 'zero' });
  assert.deepEqual(layout.decode(Buffer.from(fill(0x40, 3) + fill(0x40, 18), 'hex')), { small: 0, wide: '0' });
  assert.deepEqual(layout.decode(Buffer.from(fill(0x00, 3) + fill(0xff, 18), 'hex')), { small: 0, wide: '0' });
});

test("spaces are the code page's: X'40' under zos, X'20' under gnucobol", () => {
  const source = fixed('01 R.', '   05 N PIC 9(3).');
  const zos = compileCopybook(source, { emptyNumeric: { spaces: 'null' } });
  const gnu = compileCopybook(source, { profile: 'gnucobol', emptyNumeric: { spaces: 'null' } });
  assert.deepEqual(zos.decode(Buffer.from('404040', 'hex')), { n: null });
  assert.equal(
    decodeError(zos, Buffer.from('202020', 'hex')).message,
    'offset 0 (N): invalid digit 0x20 in a zoned decimal',
  );
  assert.deepEqual(gnu.decode(Buffer.from('202020', 'hex')), { n: null });
  assert.equal(decodeError(gnu, Buffer.from('404040', 'hex')).reason, 'invalid digit 0x40 in a zoned decimal');
});

test('a policy per filler: the others stay errors; a partly filled item is an error', () => {
  const source = fixed('01 R.', '   05 N PIC S9(5) COMP-3.');
  const layout = compileCopybook(source, { emptyNumeric: { lowValues: 'null', highValues: 'zero' } });
  assert.deepEqual(layout.decode(Buffer.from('000000', 'hex')), { n: null });
  assert.deepEqual(layout.decode(Buffer.from('ffffff', 'hex')), { n: 0 });
  assert.equal(
    decodeError(layout, Buffer.from('404040', 'hex')).message,
    'offset 2 (N): invalid sign nibble 0 in packed decimal',
  );
  // X'00000F' is a value (unsigned zero), not LOW-VALUES
  assert.deepEqual(layout.decode(Buffer.from('00000f', 'hex')), { n: 0 });
  assert.deepEqual(layout.decode(Buffer.from('00001c', 'hex')), { n: 1 });
  assert.equal(
    decodeError(layout, Buffer.from('0000ff', 'hex')).message,
    'offset 2 (N): invalid digit nibble f in packed decimal',
  );
});

test('sign leading separate and BLANK WHEN ZERO: the policy applies where the bytes are no value', () => {
  const source = fixed('01 R.', '   05 SEP PIC S9(3) SIGN LEADING SEPARATE.', '   05 BWZ PIC 9(3) BLANK WHEN ZERO.');
  const layout = compileCopybook(source, { emptyNumeric: 'null' });
  // BLANK WHEN ZERO: spaces are zero, the value COBOL wrote
  assert.deepEqual(layout.decode(Buffer.from(fill(0x40, 4) + fill(0x40, 3), 'hex')), { sep: null, bwz: 0 });
  assert.deepEqual(layout.decode(Buffer.from(fill(0x00, 4) + fill(0x00, 3), 'hex')), { sep: null, bwz: null });
});

test('encode of null writes the first filler whose action is null, or nullFill', () => {
  const layout = compileCopybook(USAGES, { emptyNumeric: 'null' });
  const json = { zoned: null, zonedS: null, packed: null, bin: null, native: 7 };
  // LOW-VALUES first; in BIN, X'0000' is zero, so its first null filler is HIGH-VALUES
  assert.equal(hex(layout.encode(json)), `${fill(0, 5)}${fill(0, 4)}${fill(0, 3)}ffff0007`);
  assert.deepEqual(layout.decode(layout.encode(json)), json);
  const spaces = compileCopybook(USAGES, { emptyNumeric: { lowValues: 'null', spaces: 'null', nullFill: 'spaces' } });
  assert.equal(
    hex(spaces.encode({ zoned: null, packed: null, bin: null })),
    `${fill(0x40, 5)}f0f0f0c0${fill(0x40, 3)}40400000`,
  );
});

test('encode of null where no policy allows it is an error naming the path', () => {
  const plain = compileCopybook(USAGES);
  assert.equal(encodeError(plain, { zoned: null }).message, 'zoned: expected a number or a decimal string, got null');
  // COMP-5 takes every bit pattern: no filler is empty, so null has no bytes
  const layout = compileCopybook(USAGES, { emptyNumeric: 'null' });
  assert.equal(encodeError(layout, { native: null }).path, 'native');
  // zero decodes to 0, never to null: null is not an input either
  const zero = compileCopybook(USAGES, { emptyNumeric: 'zero' });
  assert.equal(encodeError(zero, { packed: null }).path, 'packed');
});

const ORDER = fixed(
  '01 ORDER.',
  '   05 ORD-NO      PIC 9(6).',
  '   05 AMOUNTS.',
  '      10 NET      PIC S9(5)V99 COMP-3.',
  '      10 TAX      PIC S9(5)V99 COMP-3.',
  '   05 LINES OCCURS 2.',
  '      10 QTY      PIC 9(3).',
  '      10 DESC     PIC X(4).',
);

test('per item and per group in the mapping; the nearest setting wins over the global one', () => {
  const layout = compileCopybook(ORDER, {
    emptyNumeric: 'error',
    mapping: { emptyNumeric: { AMOUNTS: 'zero', TAX: 'null', LINES: { lowValues: 'null' } } },
  });
  const bytes = Buffer.from(`f0f0f0f0f0f1${fill(0x40, 4)}${fill(0x40, 4)}000000c1c2c3c4f0f0f5c1c2c3c4`, 'hex');
  assert.deepEqual(layout.decode(bytes), {
    ordNo: 1,
    amounts: { net: 0, tax: null },
    lines: [
      { qty: null, desc: 'ABCD' },
      { qty: 5, desc: 'ABCD' },
    ],
  });
  // ORD-NO has no policy
  const noPolicy = Buffer.from(bytes);
  noPolicy.fill(0, 0, 6);
  assert.equal(decodeError(layout, noPolicy).message, 'offset 0 (ORD-NO): invalid digit 0x00 in a zoned decimal');
  // in a table, null is written into the element's own bytes, and a wrong null names the element
  const out = layout.encode({ ordNo: 2, amounts: { tax: null }, lines: [{ qty: 1 }, { qty: null }] });
  assert.equal(hex(out.subarray(10, 14)), fill(0x00, 4));
  assert.equal(hex(out.subarray(21, 24)), '000000');
  assert.equal(encodeError(layout, { amounts: { net: null } }).path, 'amounts.net');
  assert.equal(encodeError(layout, { ordNo: null }).path, 'ordNo');
});

test('the JSON Schema and TypeScript types allow null only where decode can give it', () => {
  const layout = compileCopybook(ORDER, { mapping: { emptyNumeric: { AMOUNTS: 'zero', TAX: 'null', QTY: 'null' } } });
  const schema = layout.jsonSchema() as {
    properties: Record<string, { properties?: Record<string, unknown>; items?: unknown }>;
  };
  assert.deepEqual(schema.properties.ordNo, { type: 'integer', minimum: 0, maximum: 999999 });
  assert.deepEqual(schema.properties.amounts!.properties, {
    net: { type: 'number', multipleOf: 0.01, minimum: -99999.99, maximum: 99999.99 },
    tax: { type: ['number', 'null'], multipleOf: 0.01, minimum: -99999.99, maximum: 99999.99 },
  });
  assert.deepEqual((schema.properties.lines!.items as { properties: unknown }).properties, {
    qty: { type: ['integer', 'null'], minimum: 0, maximum: 999 },
    desc: { type: 'string', maxLength: 4 },
  });
  const ts = layoutTypeScript(layout.jsonSchema());
  assert.match(ts, /net: number;/);
  assert.match(ts, /tax: number \| null;/);
  assert.match(ts, /qty: number \| null;/);
  assert.match(ts, /ordNo: number;/);
});

test('a level-88 enum takes null too where the item is nullable', () => {
  const source = fixed('01 R.', '   05 ST PIC 9.', '      88 ST-OK VALUE 1.');
  const schema = compileCopybook(source, { emptyNumeric: 'null' }).jsonSchema() as { properties: { st: unknown } };
  assert.deepEqual(schema.properties.st, { type: ['integer', 'null'], minimum: 0, maximum: 9, enum: [1, null] });
});

test('bad policies are refused with the setting they come from', () => {
  const mapping = (emptyNumeric: Record<string, unknown>): CompileOptions =>
    ({ mapping: { emptyNumeric } }) as CompileOptions;
  const refused = (options: CompileOptions) => {
    try {
      compileCopybook(ORDER, options);
    } catch (e) {
      return e as Error;
    }
    assert.fail('compiled');
  };
  const noSuch = refused(mapping({ 'NO-SUCH': 'null' }));
  assert.ok(noSuch instanceof MappingError);
  assert.equal(noSuch.message, 'mapping "NO-SUCH": emptyNumeric: no such item in the copybook');
  assert.equal(refused(mapping({ DESC: 'null' })).message, 'mapping "DESC": emptyNumeric: DESC is not numeric');
  assert.equal(
    refused(mapping({ QTY: 'nil' })).message,
    'mapping "QTY": emptyNumeric: expected one of error, null, zero (got "nil")',
  );
  assert.equal(
    refused(mapping({ QTY: { lowValues: 'zero', nullFill: 'lowValues' } })).message,
    'mapping "QTY": emptyNumeric: nullFill is lowValues, whose action is not "null"',
  );
  assert.equal(
    refused(mapping({ QTY: { blanks: 'null' } })).message,
    'mapping "QTY": emptyNumeric: unknown key "blanks" (expected lowValues, highValues, spaces, nullFill)',
  );
  const global = refused({ emptyNumeric: 'empty' as 'null' });
  assert.ok(global instanceof TypeError);
  assert.equal(global.message, 'emptyNumeric: expected one of error, null, zero (got "empty")');
});

test('an OCCURS DEPENDING ON counter keeps decoding strictly', () => {
  const source = fixed('01 R.', '   05 N PIC 9.', '   05 T PIC 9(2) OCCURS 0 TO 2 DEPENDING ON N.');
  const layout = compileCopybook(source, { emptyNumeric: 'null' });
  assert.deepEqual(layout.decode(Buffer.from('f1' + '4040', 'hex')), { n: 1, t: [null] });
  assert.equal(decodeError(layout, Buffer.from('40', 'hex')).reason, 'invalid digit 0x40 in a zoned decimal');
  const schema = layout.jsonSchema() as { properties: { n: { type: unknown } } };
  assert.equal(schema.properties.n.type, 'integer');
  assert.throws(() => compileCopybook(source, { mapping: { emptyNumeric: { N: 'null' } } }), {
    message: 'mapping "N": emptyNumeric: N is an OCCURS DEPENDING ON counter; it must hold a count',
  });
});

test('items without a policy read through the same fast paths as before: no check in their code', () => {
  const layout = compileCopybook(ORDER, { mapping: { emptyNumeric: { TAX: 'null' } } });
  const source = layout.codecSource();
  assert.equal(source.match(/getOrEmpty\(/g)?.length, 1);
  assert.match(source, /"ordNo": getZonedConstants\(b, 0,/);
  assert.match(source, /"net": getPackedConstants\(b, 6,/);
  assert.match(source, /"tax": getOrEmpty\(b, 10,/);
  assert.equal(compileCopybook(ORDER).codecSource().includes('getOrEmpty'), false);
});

test('property: with a null policy, null round-trips through its filler and every value through its bytes', () => {
  const usages = ['', ' COMP-3', ' COMP', ' COMP-5'];
  fc.assert(
    fc.property(
      fc.constantFrom(...usages),
      fc.integer({ min: 1, max: 9 }),
      fc.boolean(),
      fc.constantFrom('zos', 'gnucobol') as fc.Arbitrary<'zos' | 'gnucobol'>,
      fc.constantFrom('lowValues', 'highValues', 'spaces') as fc.Arbitrary<'lowValues' | 'highValues' | 'spaces'>,
      fc.double({ min: 0, max: 1, noNaN: true }),
      (usage, digits, signed, profile, nullFill, fraction) => {
        const source = fixed('01 R.', `   05 N PIC ${signed ? 'S' : ''}9(${digits})${usage}.`);
        const layout = compileCopybook(source, {
          profile,
          emptyNumeric: { lowValues: 'null', highValues: 'null', spaces: 'null', nullFill },
        });
        const max = 10 ** digits - 1;
        const value = Math.round(fraction * max) * (signed && fraction > 0.5 ? -1 : 1);
        assert.deepEqual(layout.decode(layout.encode({ n: value })), { n: value });
        const nullable = (layout.jsonSchema() as { properties: { n: { type: unknown } } }).properties.n.type;
        if (Array.isArray(nullable)) assert.deepEqual(layout.decode(layout.encode({ n: null })), { n: null });
        else assert.equal(encodeError(layout, { n: null }).path, 'n');
      },
    ),
    { numRuns: 300 },
  );
});

test('every numeric key of the usage record is present in decode output', () => {
  const layout = compileCopybook(USAGES, { emptyNumeric: 'zero' });
  assert.deepEqual(Object.keys(layout.decode(filled(0xff))), KEYS);
});
