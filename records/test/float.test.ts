/**
 * COMP-1/COMP-2: IBM hexadecimal floating point (zos) against published worked examples and the format's
 * definition; IEEE 754 (gnucobol) against Node's own Buffer.writeFloat/writeDouble as a second judge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, RecordDecodeError, RecordEncodeError, type CompileOptions } from '../src/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');
const FLOATS = fixed('01 R.', '   05 SHORT-F COMP-1.', '   05 LONG-F  COMP-2.');

const layout = (options: CompileOptions = {}) => compileCopybook(FLOATS, { profile: 'zos', ...options });
const hex = (b: Buffer) => b.toString('hex').toUpperCase();

/** Record bytes for a short and a long HFP value. */
const record = (short: string, long: string) => Buffer.from(short + long, 'hex');

// Published HFP examples, each with where it is published.
const SHORT_EXAMPLES: Array<[string, number, string]> = [
  // IBM, quoted in the issue (Enterprise COBOL / z/Architecture documentation)
  ['41100000', 1, 'IBM: 1.0 = X41100000'],
  // "IBM hexadecimal floating-point", worked example (Wikipedia, mirrored at http://piglix.com/piglix/Hexadecimal_floating_point)
  ['C276A000', -118.625, 'Wikipedia HFP: -118.625'],
  // same page: largest representable number +0.FFFFFF × 16^63
  ['7FFFFFFF', (1 - 16 ** -6) * 16 ** 63, 'Wikipedia HFP: largest short'],
  // same page: smallest positive normalised number +0.1 × 16^-64
  ['00100000', 16 ** -65, 'Wikipedia HFP: smallest normalised'],
  // "Internal Representation: S/390 Floating Point", https://billlalonde.tripod.com/card/float.htm: 2.1 truncated
  ['41219999', 0x219999 * 2 ** -20, 'S/390 card: X41219999, roughly 2.09999943'],
];

const LONG_EXAMPLES: Array<[string, number, string]> = [
  // IBM 5100 Maintenance Information Manual, Language Support 6-11 (https://easymanua.ls/ibm/5100/manual?p=323):
  // "The decimal value of the floating-point number 43 10 88 00 00 00 00 00 is 264.5"
  ['4310880000000000', 264.5, 'IBM 5100 manual: 264.5'],
  ['4110000000000000', 1, 'IBM: 1.0 in the long format'],
  ['C276A00000000000', -118.625, 'Wikipedia HFP: -118.625 in the long format'],
];

test('HFP: the published examples decode to their value, and encode back to the same bytes', () => {
  const l = layout();
  for (const [bytes, value, source] of SHORT_EXAMPLES) {
    const decoded = l.decode(record(bytes, '0000000000000000'));
    assert.equal(decoded.shortF, value, source);
    assert.equal(hex(l.encode({ shortF: value, longF: 0 })).slice(0, 8), bytes, source);
  }
  for (const [bytes, value, source] of LONG_EXAMPLES) {
    assert.equal(l.decode(record('00000000', bytes)).longF, value, source);
    assert.equal(hex(l.encode({ shortF: 0, longF: value })).slice(8), bytes, source);
  }
});

test('HFP: every class of bit pattern decodes as z/Architecture defines it', () => {
  const l = layout();
  const short = (bytes: string) => l.decode(record(bytes, '0000000000000000')).shortF;
  const long = (bytes: string) => l.decode(record('00000000', bytes)).longF;
  // unnormalised: leading zero digits in the fraction, same value as the normalised form
  assert.equal(short('42010000'), 1);
  assert.equal(short('00000001'), 2 ** -280);
  assert.equal(long('4F01000000000000'), 2 ** 52);
  // true zero, zero fraction with any exponent, negative zero: all zero (JSON has no -0)
  for (const z of ['00000000', '45000000', '7F000000', '80000000', 'C5000000', 'FF000000']) {
    assert.ok(Object.is(short(z), 0), z);
    assert.ok(Object.is(long(`${z}00000000`), 0), `${z}00000000`);
  }
  // encode writes true zero, and normalised forms
  assert.equal(hex(l.encode({ shortF: -0, longF: 0 })), '000000000000000000000000');
  // long fraction (56 bits) to a double (53 bits): round half to even. With exponent 4E the value is the fraction.
  assert.equal(long('4E10000000000001'), 2 ** 52 + 1, 'exact below 2^53');
  assert.equal(long('4E20000000000001'), 2 ** 53, 'tie: 2^53 + 1 rounds to the even 2^53');
  assert.equal(long('4E20000000000003'), 2 ** 53 + 4, 'tie: 2^53 + 3 rounds to the even 2^53 + 4');
  assert.equal(long('4E20000000000005'), 2 ** 53 + 4, 'tie: 2^53 + 5 rounds to the even 2^53 + 4');
  assert.equal(long('4EFFFFFFFFFFFFFF'), 2 ** 56, 'carry into the next binade');
  assert.equal(long('CE80000000000003'), -(2 ** 55), 'negative, below the tie: rounds down in magnitude');
  assert.equal(long('CE80000000000005'), -(2 ** 55 + 8), 'negative, above the tie: rounds up in magnitude');
});

test('HFP: a value the field cannot hold exactly is refused, naming the path, unless floatRounding allows it', () => {
  const l = layout();
  assert.throws(
    () => l.encode({ shortF: 0.1, longF: 0 }),
    (e: unknown) =>
      e instanceof RecordEncodeError &&
      e.path === 'shortF' &&
      /0\.1 cannot be held exactly by a COMP-1 \(IBM hexadecimal floating point\); the nearest value it holds is 0\.10000002384185791/.test(
        e.message,
      ),
  );
  // every double within range fits the long format: 0.1 round-trips in COMP-2
  assert.equal(l.decode(l.encode({ shortF: 0, longF: 0.1 })).longF, 0.1);
  assert.equal(hex(l.encode({ shortF: 0, longF: 0.1 })).slice(8), '401999999999999A');
  const nearest = layout({ floatRounding: 'nearest' });
  // 0.1 = 0.1999999…(hex) × 16^0: the seventh digit 9 rounds the sixth up
  assert.equal(hex(nearest.encode({ shortF: 0.1, longF: 0 })).slice(0, 8), '4019999A');
  // ties go to the even fraction
  assert.equal(hex(nearest.encode({ shortF: 1 + 2 ** -21, longF: 0 })).slice(0, 8), '41100000');
  assert.equal(hex(nearest.encode({ shortF: 1 + 3 * 2 ** -21, longF: 0 })).slice(0, 8), '41100002');
  // rounding up can carry into the exponent
  assert.equal(hex(nearest.encode({ shortF: 16 - 2 ** -30, longF: 0 })).slice(0, 8), '42100000');
  // overflow is refused whatever the rounding; underflow rounds only when allowed
  for (const l2 of [l, nearest]) {
    assert.throws(
      () => l2.encode({ shortF: 0, longF: 1e76 }),
      (e: unknown) =>
        e instanceof RecordEncodeError && e.path === 'longF' && /overflows the HFP exponent range/.test(e.message),
    );
  }
  assert.throws(() => l.encode({ shortF: 1e-90, longF: 0 }), /cannot be held exactly/);
  assert.equal(nearest.decode(nearest.encode({ shortF: 1e-90, longF: 0 })).shortF, 0);
  assert.throws(
    () => l.encode({ shortF: 'abc', longF: 0 }),
    (e: unknown) =>
      e instanceof RecordEncodeError &&
      e.path === 'shortF' &&
      /expected a number for a COMP-1 field, got "abc"/.test(e.message),
  );
  assert.equal(l.decode(l.encode({ shortF: '-118.625', longF: '1e3' })).longF, 1000);
});

test('property: HFP decode(encode(x)) = x for every value the format holds, and normalised bytes round-trip', () => {
  const l = layout();
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (s, d) => {
      const bytes = Buffer.alloc(12);
      bytes.writeUInt32BE(s, 0);
      bytes.writeBigUInt64BE(d, 4);
      const value = l.decode(bytes);
      // the long format's largest values round to 16^63, one unit past the largest it holds: an overflow
      if (Math.abs(value['longF'] as number) >= 16 ** 63) {
        assert.throws(() => l.encode(value), /overflows the HFP exponent range/);
        return;
      }
      const again = l.decode(l.encode(value));
      assert.deepEqual(again, value);
      // a normalised short value (leading digit non-zero) comes back as the same bytes
      if ((s & 0xf00000) !== 0) assert.equal(l.encode(value).readUInt32BE(0), s);
    }),
    { numRuns: 500 },
  );
  // doubles in the long format's range are held exactly
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -(16 ** 62), max: 16 ** 62 }), (x) => {
      fc.pre(x === 0 || Math.abs(x) >= 16 ** -65);
      const json = { shortF: 0, longF: x };
      assert.equal(l.decode(l.encode(json)).longF, x === 0 ? 0 : x);
    }),
    { numRuns: 500 },
  );
});

test('property: with floatRounding nearest, HFP COMP-1 holds the nearest value, ties to an even fraction', () => {
  const l = layout({ floatRounding: 'nearest' });
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -(16 ** 62), max: 16 ** 62 }), (x) => {
      const bytes = l.encode({ shortF: x, longF: 0 });
      const y = l.decode(bytes).shortF as number;
      const word = bytes.readUInt32BE(0);
      const exp = (word >>> 24) & 0x7f;
      const frac = word & 0xffffff;
      // normalised, or the smallest exponent
      assert.ok(frac === 0 || frac >= 0x100000 || exp === 0, word.toString(16));
      // within half a unit of the last place of the result (x − y is exact: they are within a factor of two)
      const ulp = 2 ** (4 * (exp - 64) - 24);
      const error = Math.abs(x - y);
      assert.ok(error <= ulp / 2, `${x} → ${y}`);
      if (error === ulp / 2) assert.equal(frac % 2, 0, `tie ${x} → ${y} must be even`);
      if (error > 0 && frac !== 0) assert.equal(Math.sign(y), Math.sign(x));
    }),
    { numRuns: 1000 },
  );
});

test('IEEE 754: bytes match Buffer.writeFloat/writeDouble in both byte orders; values round-trip', () => {
  for (const floatFormat of ['ieee-big', 'ieee-little'] as const) {
    const l = compileCopybook(FLOATS, { profile: 'gnucobol', floatFormat });
    fc.assert(
      fc.property(
        fc.float({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (f, d) => {
          const bytes = l.encode({ shortF: f, longF: d });
          const judge = Buffer.alloc(12);
          if (floatFormat === 'ieee-big') {
            judge.writeFloatBE(f === 0 ? 0 : f, 0);
            judge.writeDoubleBE(d === 0 ? 0 : d, 4);
          } else {
            judge.writeFloatLE(f === 0 ? 0 : f, 0);
            judge.writeDoubleLE(d === 0 ? 0 : d, 4);
          }
          assert.equal(bytes.toString('hex'), judge.toString('hex'));
          assert.deepEqual(l.decode(bytes), { shortF: f === 0 ? 0 : f, longF: d === 0 ? 0 : d });
        },
      ),
      { numRuns: 300 },
    );
  }
});

test('IEEE 754: NaN and infinities are a decode error naming the offset; 0.1 into COMP-1 is refused', () => {
  const l = compileCopybook(FLOATS, { profile: 'gnucobol' });
  const bytes = Buffer.alloc(12);
  bytes.writeFloatLE(Number.NaN, 0);
  assert.throws(
    () => l.decode(bytes),
    (e: unknown) => e instanceof RecordDecodeError && e.offset === 0 && /COMP-1 holds NaN/.test(e.message),
  );
  bytes.writeFloatLE(1, 0);
  bytes.writeDoubleLE(Number.NEGATIVE_INFINITY, 4);
  assert.throws(
    () => l.decode(bytes),
    (e: unknown) =>
      e instanceof RecordDecodeError && e.offset === 4 && e.field === 'LONG-F' && /-infinity/.test(e.message),
  );
  assert.throws(() => l.encode({ shortF: 0.1 }), /nearest value it holds is 0\.10000000149011612/);
  assert.throws(() => l.encode({ shortF: 1e39 }), /overflows a COMP-1/);
  const nearest = compileCopybook(FLOATS, { profile: 'gnucobol', floatRounding: 'nearest' });
  assert.equal(nearest.decode(nearest.encode({ shortF: 0.1 })).shortF, Math.fround(0.1));
});

test('COMP-1/COMP-2 in the JSON Schema: numbers within the format range', () => {
  const zos = layout().jsonSchema() as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(zos.properties['shortF'], {
    type: 'number',
    minimum: -((1 - 2 ** -24) * 2 ** 252),
    maximum: (1 - 2 ** -24) * 2 ** 252,
  });
  const gnu = compileCopybook(FLOATS, { profile: 'gnucobol' }).jsonSchema() as typeof zos;
  assert.equal(gnu.properties['shortF']!['maximum'], 3.4028234663852886e38);
  assert.equal(gnu.properties['longF']!['maximum'], Number.MAX_VALUE);
});

test('FLOAT-SHORT, FLOAT-LONG and COMPUTATIONAL-n are the same usages; a group USAGE COMP-2 applies to its items', () => {
  const l = compileCopybook(
    fixed(
      '01 R.',
      '   05 A FLOAT-SHORT.',
      '   05 B USAGE IS COMPUTATIONAL-2.',
      '   05 G COMP-2.',
      '      10 C.',
      '      10 D.',
    ),
    { profile: 'gnucobol' },
  );
  assert.equal(l.maxLength, 4 + 8 + 16);
  assert.deepEqual(l.decode(l.encode({ a: 1.5, b: -2.25, g: { c: 3, d: 4 } })), {
    a: 1.5,
    b: -2.25,
    g: { c: 3, d: 4 },
  });
});

test('VALUE on COMP-1/COMP-2 takes floating-point literals; a VALUE the field cannot hold exactly is refused', () => {
  const l = compileCopybook(fixed('01 R.', '   05 A COMP-2 VALUE -2.5E+03.', '   05 B COMP-1 VALUE 1.5.'));
  assert.equal(hex(l.encode({})), 'C39C400000000000' + '41180000');
  const schema = l.jsonSchema() as { properties: Record<string, Record<string, unknown>> };
  assert.equal(schema.properties['a']!['default'], -2500);
  assert.throws(
    () => compileCopybook(fixed('01 R.', '   05 B COMP-1 VALUE 0.1.'), { fileName: 'v.cpy' }),
    /^CopybookError: v\.cpy:2:11: VALUE of B: 0\.1 cannot be held exactly by a COMP-1/,
  );
  assert.throws(
    () => compileCopybook(fixed('01 R.', '   05 B PIC 9(5) VALUE 1.5E3.')),
    /"1\.5E3" is not a decimal number/,
  );
});
