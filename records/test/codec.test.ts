import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCopybook, RecordDecodeError, RecordEncodeError, type CompileOptions } from '../src/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const ORDER = fixed(
  '01 ORDER-REC.',
  '   05 ORD-ID         PIC X(6).',
  '   05 ORD-QTY        PIC S9(3).',
  '   05 ORD-PRICE      PIC 9(5)V99 COMP-3.',
  '   05 ORD-FLAG       PIC A(2).',
  '   05 ORD-COUNT      PIC 9(4) COMP.',
  '   05 ORD-TOTAL      PIC S9(15)V99.',
  '   05 ORD-LINE OCCURS 2 TIMES.',
  '      10 LINE-SKU    PIC X(3).',
  '      10 LINE-AMT    PIC S9(3)V9 COMP-3.',
  '   05 LINE-N         PIC 9.',
  '   05 ORD-NOTE OCCURS 0 TO 3 TIMES DEPENDING ON LINE-N PIC X(2).',
);

function encodeError(source: string, json: unknown, options: CompileOptions = {}): RecordEncodeError {
  const layout = compileCopybook(source, options);
  try {
    layout.encode(json);
  } catch (e) {
    assert.ok(e instanceof RecordEncodeError, `expected RecordEncodeError, got ${String(e)}`);
    return e;
  }
  assert.fail(`encoded ${JSON.stringify(json)} without error`);
}

function decodeError(source: string, bytes: Buffer, options: CompileOptions = {}): RecordDecodeError {
  const layout = compileCopybook(source, options);
  try {
    layout.decode(bytes);
  } catch (e) {
    assert.ok(e instanceof RecordDecodeError, `expected RecordDecodeError, got ${String(e)}`);
    return e;
  }
  assert.fail('decoded without error');
}

test('z/OS profile: EBCDIC text, C/D/F zoned signs, packed and big-endian binary', () => {
  const layout = compileCopybook(
    fixed(
      '01 R.',
      '   05 NAME PIC X(4).',
      '   05 POS PIC S9(3).',
      '   05 NEG PIC S9(3).',
      '   05 UNS PIC 9(2).',
      '   05 PK PIC S9(4) COMP-3.',
      '   05 BN PIC S9(4) COMP.',
      '   05 C5 PIC 9(4) COMP-5.',
    ),
  );
  const bytes = layout.encode({ name: 'Ab1', pos: 12, neg: -12, uns: 7, pk: -1234, bn: -2, c5: 65535 });
  assert.equal(hex(bytes), 'c182f140' + 'f0f1c2' + 'f0f1d2' + 'f0f7' + '01234d' + 'fffe' + 'ffff');
  assert.deepEqual(layout.decode(bytes), { name: 'Ab1', pos: 12, neg: -12, uns: 7, pk: -1234, bn: -2, c5: 65535 });
});

test('cp1140 holds the euro sign, cp037 does not; the z/OS profile is cp1140', () => {
  const src = fixed('01 R.', '   05 CUR PIC X.');
  assert.equal(hex(compileCopybook(src, { encoding: 'cp1140' }).encode({ cur: '€' })), '9f');
  assert.equal(hex(compileCopybook(src).encode({ cur: '€' })), '9f');
  // decode: cp1140's 0x9F is the euro sign, cp037's the currency sign
  const text = fixed('01 R.', '   05 PRICE PIC X(8).');
  const bytes = Buffer.from('9f40f54bf0f04040', 'hex');
  assert.deepEqual(compileCopybook(text).decode(bytes), { price: '€ 5.00' });
  assert.deepEqual(compileCopybook(text, { encoding: 'cp037' }).decode(bytes), { price: '¤ 5.00' });
  const refused = encodeError(src, { cur: '€' }, { encoding: 'cp037' });
  assert.match(refused.message, /cur: character "€" at position 0 is not in cp037/);
  assert.deepEqual(refused.limit, { kind: 'character', character: '€', position: 0, charset: 'cp037' });
  // A character outside the BMP is named whole, not by half of its surrogate pair.
  assert.deepEqual(encodeError(fixed('01 R.', '   05 TXT PIC X(4).'), { txt: 'a😀' }).limit, {
    kind: 'character',
    character: '😀',
    position: 1,
    charset: 'cp1140',
  });
  assert.equal(compileCopybook(src, { encoding: 'cp037' }).decode(Buffer.from('9f', 'hex')).cur, '¤');
});

test('a refused value names the limit it broke, for callers that explain it in their own words', () => {
  const src = fixed('01 R.', '   05 TXT PIC X(3).', '   05 AMT PIC S9(3)V99 COMP-3.', '   05 QTY PIC 9(2).');
  const ok = { txt: 'abc', amt: 1.5, qty: 1 };
  assert.deepEqual(encodeError(src, { ...ok, txt: 'abcd' }).limit, { kind: 'length', max: 3 });
  assert.deepEqual(encodeError(src, { ...ok, amt: 5.555 }).limit, { kind: 'decimals', max: 2 });
  assert.deepEqual(encodeError(src, { ...ok, amt: 1000 }).limit, { kind: 'range', min: '-999.99', max: '999.99' });
  assert.deepEqual(encodeError(src, { ...ok, qty: -1 }).limit, { kind: 'range', min: '0', max: '99' });
  assert.equal(encodeError(src, { ...ok, qty: 'one' }).limit, undefined);
});

test('exact decimals: S9(15)V99 round-trips every value through decimal strings', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 BIG PIC S9(15)V99 COMP-3.', '   05 SMALL PIC S9(13)V99.'));
  for (const big of ['999999999999999.99', '-999999999999999.99', '0.01', '-0.1', '123456789012345.6', '0']) {
    const bytes = layout.encode({ big, small: 0.1 });
    assert.deepEqual(layout.decode(bytes), { big, small: 0.1 });
  }
  assert.equal(layout.decode(layout.encode({ big: '000012.50', small: '-0.00' })).big, '12.5');
  assert.equal(layout.decode(layout.encode({ small: -0 })).small, 0);
  assert.equal(hex(layout.encode({ big: '1.1', small: 1.1 }).subarray(0, 9)), '00000000000000110c');
});

test('absent fields take their VALUE or the default; FILLER is initialised too', () => {
  const layout = compileCopybook(
    fixed(
      '01 R.',
      '   05 A PIC X(3) VALUE "YES".',
      '   05 FILLER PIC X(2) VALUE "--".',
      '   05 B PIC 9(3) VALUE 42.',
      '   05 C PIC S9(2) COMP-3.',
      '   05 D PIC X(2).',
      '   05 E PIC 9(2) BLANK WHEN ZERO.',
    ),
    { profile: 'gnucobol' },
  );
  assert.equal(layout.encode({}).toString('latin1').slice(0, 8), 'YES--042');
  assert.equal(hex(layout.encode({}).subarray(8)), '000c20202020');
  assert.deepEqual(layout.decode(layout.encode({})), { a: 'YES', b: 42, c: 0, d: '', e: 0 });
  assert.equal(layout.encode({ e: 5 }).toString('latin1', 12), '05');
});

test('a shorter value is padded with spaces wherever the field is: after a VALUE, in tables, in REDEFINES views, in EBCDIC', () => {
  const source = fixed(
    '01 R.',
    '   05 A PIC X(4) VALUE "WXYZ".',
    '   05 B PIC X(4).',
    '   05 T OCCURS 2 TIMES.',
    '      10 T-X PIC X(3).',
    '   05 U PIC X(4).',
    '   05 V REDEFINES U.',
    '      10 V1 PIC X(2).',
    '      10 V2 PIC X(2).',
    '   05 J PIC X(4) JUSTIFIED RIGHT.',
  );
  const value = { a: 'a', b: 'b', t: [{ tX: 'c' }, { tX: 'de' }], u: 'f', j: 'g' };
  assert.equal(
    compileCopybook(source, { profile: 'gnucobol' }).encode(value).toString('latin1'),
    'a   b   c  de f      g',
  );
  const view = compileCopybook(source, { profile: 'gnucobol', mapping: { redefines: { U: 'V' } } });
  assert.equal(view.encode({ v: { v1: 'h', v2: 'i' } }).toString('latin1', 14, 18), 'h i ');
  const ebcdic = compileCopybook(source, { profile: 'zos' }).encode(value);
  assert.equal(hex(ebcdic.subarray(0, 8)), '8140404082404040');
});

test('JUSTIFIED RIGHT pads on the left and decodes without the padding', () => {
  const layout = compileCopybook(fixed('01 R.', '   05 A PIC X(5) JUSTIFIED RIGHT.'), { profile: 'gnucobol' });
  assert.equal(layout.encode({ a: 'ab' }).toString('latin1'), '   ab');
  assert.deepEqual(layout.decode(Buffer.from('   ab')), { a: 'ab' });
});

test('OCCURS DEPENDING ON: the record is as long as the count; the counter follows the array', () => {
  const layout = compileCopybook(ORDER, { profile: 'gnucobol' });
  assert.deepEqual([layout.minLength, layout.maxLength], [47, 53]);
  const two = layout.encode({ ordNote: ['ab', 'cd'] });
  assert.equal(two.length, 51);
  const decoded = layout.decode(two);
  assert.deepEqual([decoded.lineN, decoded.ordNote], [2, ['ab', 'cd']]);
  assert.equal(layout.encode({ lineN: 1 }).length, 49);
  assert.equal(layout.encode({}).length, 47);
  // a fixed table given short decodes to all its elements, the rest at their defaults
  assert.deepEqual(layout.decode(layout.encode({ ordLine: [{ lineSku: 'X1', lineAmt: -1.5 }] })).ordLine, [
    { lineSku: 'X1', lineAmt: -1.5 },
    { lineSku: '', lineAmt: 0 },
  ]);
});

test('bad values are refused with the JSON path, never truncated or rounded', async (t) => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['string too long', { ordId: 'ABCDEFG' }, 'ordId', /string of 7 characters is longer than the 6/],
    ['number for string', { ordId: 12 }, 'ordId', /expected a string, got a number/],
    ['too many digits', { ordQty: 1000 }, 'ordQty', /too many digits for PIC S9\(3\) \(at most ±999\)/],
    ['negative into unsigned', { ordPrice: -1 }, 'ordPrice', /negative value -1 into an unsigned field/],
    ['too many decimals', { ordPrice: 1.005 }, 'ordPrice', /1.005 has 3 decimal places; the picture holds 2/],
    [
      'float noise',
      { ordPrice: 0.1 + 0.2 },
      'ordPrice',
      /more than 15 significant digits and cannot be taken exactly; send it as a decimal string/,
    ],
    ['decimal in an integer', { ordQty: 1.5 }, 'ordQty', /1.5 has 1 decimal places; the picture holds 0/],
    ['string for number', { ordQty: 'five' }, 'ordQty', /"five" is not a decimal number/],
    ['boolean for number', { ordQty: true }, 'ordQty', /expected a number or a decimal string, got a boolean/],
    ['null', { ordQty: null }, 'ordQty', /got null/],
    ['NaN-like infinity', { ordQty: Infinity }, 'ordQty', /not a finite number/],
    [
      'imprecise JSON number',
      // eslint-disable-next-line no-loss-of-precision -- the point: a JSON number a double cannot hold exactly
      { ordTotal: 12345678901234567 },
      'ordTotal',
      /beyond the exact range|more than 15 significant digits/,
    ],
    ['wide value too big', { ordTotal: '1234567890123456' }, 'ordTotal', /too many digits for PIC S9\(15\)V9\(2\)/],
    ['not letters in PIC A', { ordFlag: 'A1' }, 'ordFlag', /holds only letters and spaces/],
    ['binary beyond picture', { ordCount: 10000 }, 'ordCount', /too many digits for PIC 9\(4\)/],
    ['unknown field', { ordid: 'x' }, 'ordid', /unknown field/],
    ['__proto__ key', JSON.parse('{"__proto__": {"x": 1}}'), '__proto__', /unknown field/],
    ['array expected', { ordLine: { lineSku: 'A' } }, 'ordLine', /expected an array, got an object/],
    ['too many elements', { ordLine: [{}, {}, {}] }, 'ordLine', /has 3 elements; at most 2 fit/],
    [
      'field inside a table',
      { ordLine: [{}, { lineAmt: 12.34 }] },
      'ordLine[1].lineAmt',
      /2 decimal places; the picture holds 1/,
    ],
    ['unknown inside a table', { ordLine: [{ sku: 'x' }] }, 'ordLine[0].sku', /unknown field/],
    ['element not an object', { ordLine: ['x'] }, 'ordLine[0]', /expected an object, got a string/],
    ['ODO above maximum', { ordNote: ['a', 'b', 'c', 'd'] }, 'ordNote', /has 4 elements; at most 3 fit/],
    ['ODO counter disagrees', { lineN: 1, ordNote: ['a', 'b'] }, 'lineN', /is 1 but ordNote has 2 elements/],
    ['ODO counter above maximum', { lineN: 5 }, 'lineN', /count 5 is outside 0 to 3/],
    ['ODO element too long', { ordNote: ['abc'] }, 'ordNote[0]', /longer than the 2/],
  ];
  for (const [name, json, path, message] of cases) {
    await t.test(name, () => {
      const e = encodeError(ORDER, json, { profile: 'gnucobol' });
      assert.equal(e.path, path);
      assert.match(e.reason, message);
      assert.equal(e.message, `${path}: ${e.reason}`);
    });
  }
  await t.test('not an object at all', () =>
    assert.match(encodeError(ORDER, [1]).message, /expected a JSON object, got an array/),
  );
  await t.test('COMP-5 is bounded by its size, not its picture', () => {
    const src = fixed('01 R.', '   05 A PIC S9(4) COMP-5.');
    assert.equal(hex(compileCopybook(src).encode({ a: 32767 })), '7fff');
    assert.match(encodeError(src, { a: 32768 }).message, /outside the range of a 2-byte signed binary field/);
  });
});

test('bad records are refused with the byte offset and field', async (t) => {
  const gnucobol: CompileOptions = { profile: 'gnucobol' };
  const src = fixed(
    '01 R.',
    '   05 A PIC X(2).',
    '   05 Z PIC S9(3).',
    '   05 P PIC S9(3) COMP-3.',
    '   05 SEP PIC S9(2) SIGN LEADING SEPARATE.',
    '   05 B PIC 9(2) COMP.',
  );
  const good = compileCopybook(src, gnucobol).encode({ a: 'ok', z: -12, p: 5, sep: 3, b: 9 });
  const corrupt = (at: number, byte: number) => {
    const copy = Buffer.from(good);
    copy[at] = byte;
    return copy;
  };
  const cases: Array<[string, Buffer, number, string, RegExp]> = [
    ['invalid zoned digit', corrupt(3, 0x41), 3, 'Z', /invalid digit 0x41 in a zoned decimal/],
    ['invalid overpunch', corrupt(4, 0x41), 4, 'Z', /invalid signed digit 0x41/],
    ['invalid packed digit', corrupt(5, 0xa0), 5, 'P', /invalid digit nibble a/],
    ['invalid packed sign', corrupt(6, 0x55), 6, 'P', /invalid sign nibble 5/],
    ['invalid separate sign', corrupt(7, 0x20), 7, 'SEP', /invalid sign character 0x20/],
    ['binary beyond picture', corrupt(10, 0xff), 10, 'B', /binary value 255 is outside the range of PIC 9\(2\)/],
    ['short record', good.subarray(0, 6), 6, 'P', /the record is 6 bytes; it ends inside this field/],
    ['long record', Buffer.concat([good, Buffer.from('x')]), 11, 'R', /the record is 12 bytes; the layout has 11/],
  ];
  for (const [name, bytes, offset, field, message] of cases) {
    await t.test(name, () => {
      const e = decodeError(src, bytes, gnucobol);
      assert.deepEqual([e.offset, e.field], [offset, field]);
      assert.match(e.message, message);
    });
  }
  await t.test('ODO count out of range', () => {
    const bytes = compileCopybook(ORDER, gnucobol).encode({});
    bytes[46] = 0x37; // LINE-N = 7, maximum 3
    const e = decodeError(ORDER, bytes, gnucobol);
    assert.deepEqual([e.offset, e.field], [46, 'LINE-N']);
    assert.match(e.message, /count 7 is outside 0 to 3/);
  });
  await t.test('EBCDIC: an ASCII digit in a z/OS record', () => {
    const e = decodeError(fixed('01 R.', '   05 N PIC 9(3).'), Buffer.from('f031f2', 'hex'));
    assert.deepEqual([e.offset, e.field], [1, 'N']);
  });
  await t.test('packed decimal: a digit in the spare nibble of an even picture', () => {
    const e = decodeError(fixed('01 R.', '   05 N PIC 9(4) COMP-3.'), Buffer.from('10000f', 'hex'));
    assert.match(e.message, /digit beyond PIC 9\(4\)/);
  });
});
