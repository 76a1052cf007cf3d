/**
 * `layout.decodeJson(bytes, out, at)` writes exactly the bytes of `JSON.stringify(layout.decode(bytes))`, or
 * throws the same RecordDecodeError (offset, field, reason): over random copybooks and their records (valid,
 * corrupted, noise in numbers, random bytes), and by hand at the edges — negative zero, spaces, escapes,
 * code pages beyond Latin-1, wide decimals, P scaling, sign nibbles, invalid digits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, RecordDecodeError, type CompiledLayout, type CompileOptions } from '../src/index.ts';
import { decodeDataset, decodeDatasetJsonLines, DatasetError, toJsonLines } from '../src/dataset/index.ts';
import { corruptionArb, layoutCaseArb, numericNoiseArb, valueArb, type LayoutCase } from './arbitraries.ts';

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

type Outcome = { json: string } | { error: RecordDecodeError };

function byDecode(layout: CompiledLayout, bytes: Uint8Array): Outcome {
  try {
    return { json: Buffer.from(JSON.stringify(layout.decode(bytes))).toString('hex') };
  } catch (e) {
    if (!(e instanceof RecordDecodeError)) throw e;
    return { error: e };
  }
}

const AT = 7;

/** decodeJson into a buffer of just the room it asks for after 7 bytes that must stay as they were. */
function byDecodeJson(layout: CompiledLayout, bytes: Uint8Array): Outcome {
  const out = Buffer.alloc(AT + layout.jsonMaxLength, 0xee);
  try {
    const end = layout.decodeJson(bytes, out, AT);
    assert.ok(
      out.subarray(0, AT).every((x) => x === 0xee),
      'decodeJson wrote before `at`',
    );
    return { json: out.subarray(AT, end).toString('hex') };
  } catch (e) {
    if (!(e instanceof RecordDecodeError)) throw e;
    return { error: e };
  }
}

const shown = (o: Outcome) =>
  'json' in o
    ? Buffer.from(o.json, 'hex').toString('utf8')
    : { offset: o.error.offset, field: o.error.field, reason: o.error.reason, message: o.error.message };

function assertSame(layout: CompiledLayout, bytes: Uint8Array): Outcome {
  const expected = byDecode(layout, bytes);
  const actual = byDecodeJson(layout, bytes);
  assert.deepStrictEqual(shown(actual), shown(expected));
  return expected;
}

/** Counts the calls decodeJson makes to the layout's decode: none when the record took the fast path. */
function slowCalls(layout: CompiledLayout, run: () => void): number {
  const decode = layout.decode;
  let calls = 0;
  layout.decode = (bytes) => {
    calls++;
    return decode(bytes);
  };
  try {
    run();
  } finally {
    layout.decode = decode;
  }
  return calls;
}

interface RecordCase extends LayoutCase {
  value: Record<string, unknown>;
}

const recordCaseArb: fc.Arbitrary<RecordCase> = layoutCaseArb.chain((c) =>
  valueArb(c.layout).map((value) =>
    Object.assign({ ...c, value }, { [fc.toStringMethod]: () => `${String(c)}value: ${JSON.stringify(value)}\n` }),
  ),
);

test('property: decodeJson of a valid record is the bytes of JSON.stringify(decode), written on the fast path', () => {
  fc.assert(
    fc.property(recordCaseArb, ({ layout, value }) => {
      const bytes = layout.encode(value);
      const calls = slowCalls(layout, () => assertSame(layout, bytes));
      // decode is called once by assertSame itself
      assert.equal(calls, 1, 'decodeJson went to decode for a record decode takes');
    }),
    { numRuns: NUM_RUNS },
  );
});

test('property: corrupted records and noise in numbers give the same JSON or the same RecordDecodeError', () => {
  const arb = recordCaseArb.chain((c) => {
    const bytes = c.layout.encode(c.value);
    return fc
      .oneof(
        corruptionArb(c.layout, c.value, bytes).map((x) => ({ label: x.label, bytes: x.bytes })),
        numericNoiseArb(c.layout, c.value, bytes),
      )
      .map((bad) =>
        Object.assign(
          { ...c, bad },
          { [fc.toStringMethod]: () => `${String(c)}${bad.label}: ${bad.bytes.toString('hex')}\n` },
        ),
      );
  });
  fc.assert(
    fc.property(arb, ({ layout, bad }) => {
      assertSame(layout, bad.bytes);
    }),
    { numRuns: NUM_RUNS },
  );
});

test('property: random bytes of a record length give the same JSON or the same RecordDecodeError', () => {
  const arb = layoutCaseArb.chain((c) =>
    fc
      .tuple(fc.integer({ min: c.layout.minLength, max: c.layout.maxLength }), fc.integer({ min: 0, max: 3 }))
      .chain(([length, fill]) =>
        // bytes of every kind, or mostly digits and spaces of the page so that more records decode
        fill === 0
          ? fc.uint8Array({ minLength: length, maxLength: length })
          : fc.uint8Array({ minLength: length, maxLength: length }).map((raw) => {
              const ebcdic = c.layout.profile.charset === 'cp037' || c.layout.profile.charset === 'cp1140';
              const common = ebcdic ? [0xf0, 0xf1, 0xf9, 0x40, 0xc1, 0x7f, 0xe0, 0x1c] : [0x30, 0x31, 0x39, 0x20, 0x41];
              return raw.map((x) => (x % 4 === 0 ? x : common[x % common.length]!));
            }),
      )
      .map((bytes) =>
        Object.assign(
          { ...c, bytes },
          { [fc.toStringMethod]: () => `${String(c)}bytes: ${Buffer.from(bytes).toString('hex')}\n` },
        ),
      ),
  );
  fc.assert(
    fc.property(arb, ({ layout, bytes }) => {
      assertSame(layout, bytes);
    }),
    { numRuns: NUM_RUNS },
  );
});

const ZOS_037: CompileOptions = { profile: 'zos', encoding: 'cp037' };

function layoutOf(fields: string, options: CompileOptions = ZOS_037): CompiledLayout {
  return compileCopybook(`       01  REC.\n${fields}`, options);
}

test('negative zero decodes to 0 in zoned and packed, narrow and wide', () => {
  const layout = layoutOf(`           05  Z   PIC S9(3)V99.
           05  P   PIC S9(5)V99 COMP-3.
           05  W   PIC S9(17)V99 COMP-3.
           05  WZ  PIC S9(18).
`);
  // cp037: F0 digits, D0 a negative zero overpunched; packed 0…0D
  const bytes = Buffer.from('f0f0f0f0d0' + '0000000d' + '000000000000000000' + '0d' + 'f0'.repeat(17) + 'd0', 'hex');
  assertSame(layout, bytes);
  assert.equal(
    Buffer.from((byDecodeJson(layout, bytes) as { json: string }).json, 'hex').toString(),
    '{"z":0,"p":0,"w":"0","wz":"0"}',
  );
});

test('text: all spaces, quotes, backslashes and control characters, right-justified, as JSON.stringify writes them', () => {
  const layout = layoutOf(`           05  A   PIC X(5).
           05  B   PIC X(12).
           05  C   PIC X(6) JUSTIFIED RIGHT.
`);
  assertSame(layout, layout.encode({ a: '', b: 'a"b\\c\n\t\u0000\u001f\u007f', c: 'ab' }));
  assertSame(layout, layout.encode({ a: 'é ü', b: 'x\r\b\f\u0085', c: '' }));
  const out = byDecodeJson(layout, layout.encode({ a: '', b: '"\\', c: '  x' })) as { json: string };
  assert.equal(Buffer.from(out.json, 'hex').toString(), '{"a":"","b":"\\"\\\\","c":"x"}');
});

test('code pages: the cp1140 euro sign as UTF-8, ASCII and Latin-1 bytes above 0x7f as decode reads them', () => {
  const euro = layoutOf('           05  T   PIC X(4).\n', { profile: 'zos', encoding: 'cp1140' });
  const bytes = euro.encode({ t: '€1"' });
  assertSame(euro, bytes);
  assert.equal(Buffer.from((byDecodeJson(euro, bytes) as { json: string }).json, 'hex').toString(), '{"t":"€1\\""}');
  for (const encoding of ['ascii', 'latin1'] as const) {
    const layout = layoutOf('           05  T   PIC X(6).\n           05  R   PIC X(4) JUST RIGHT.\n', {
      profile: 'zos',
      encoding,
    });
    assertSame(layout, Buffer.from('c3a95c22ff80' + '20208122', 'hex'));
    assertSame(layout, Buffer.from('0009200020' + '20' + '20202020', 'hex'));
  }
});

test('wide decimals (16 to 31 digits) print as the decimal strings decode returns', () => {
  const layout = layoutOf(`           05  P16 PIC 9(16) COMP-3.
           05  P18 PIC S9(16)V99 COMP-3.
           05  Z17 PIC S9(10)V9(7).
           05  Z31 PIC V9(31).
`);
  const values = [
    { p16: '9999999999999999', p18: '-0.01', z17: '-1234567890.1234567', z31: '0.0000000000000000000000000000001' },
    { p16: '0', p18: '1234567890123456.78', z17: '0.5', z31: '0.9' },
    { p16: '1000000000000000', p18: '-10', z17: '1', z31: '0' },
  ];
  for (const v of values) {
    const bytes = layout.encode(v);
    assertSame(layout, bytes);
    assert.deepStrictEqual(layout.decode(bytes), v);
  }
});

test('scales: P scaling, fractions below 1e-6 (printed with an exponent), binary with decimals', () => {
  const layout = layoutOf(`           05  PL  PIC S9(3)PPP.
           05  PR  PIC SVPP9(3).
           05  E   PIC V9(8).
           05  E9  PIC S9(3)V9(9) COMP-3.
           05  B   PIC S9(5)V99 COMP.
           05  U   PIC 9(4)V9(6).
`);
  for (const v of [
    { pl: -123000, pr: 0.00123, e: 1e-8, e9: -0.000000001, b: -123.45, u: 0.000001 },
    { pl: 0, pr: -0.00001, e: 0.12345678, e9: 999.999999999, b: 0, u: 9999.99999 },
  ]) {
    const bytes = layout.encode(v);
    assertSame(layout, bytes);
    assert.deepStrictEqual(layout.decode(bytes), v);
  }
});

test('sign nibbles and zones: each one decode takes or refuses, with the same error', () => {
  const layout = layoutOf(`           05  S   PIC S9(3) COMP-3.
           05  U   PIC 9(3) COMP-3.
           05  E   PIC S9(4) COMP-3.
           05  Z   PIC S9(3).
           05  ZU  PIC 9(3).
`);
  for (let nibble = 0; nibble < 16; nibble++) {
    for (const at of [1, 3]) {
      const bytes = Buffer.from('123c' + '456f' + '00789c' + 'f1f2c3' + 'f4f5f6', 'hex');
      bytes[at] = (bytes[at]! & 0xf0) | nibble;
      assertSame(layout, bytes);
    }
  }
  // the spare nibble of an even digit count, zones of the last zoned byte, a digit nibble above 9
  for (const [at, byte] of [
    [4, 0x10],
    [5, 0xa7],
    [11, 0xa3],
    [11, 0xb3],
    [11, 0xe3],
    [11, 0xd3],
    [11, 0x73],
    [14, 0xc6],
    [14, 0xd6],
    [9, 0xf0],
    [9, 0xc1],
    [12, 0x40],
  ] as const) {
    const bytes = Buffer.from('123c' + '456f' + '00789c' + 'f1f2c3' + 'f4f5f6', 'hex');
    bytes[at] = byte;
    const outcome = assertSame(layout, bytes);
    if ([4, 5, 12].includes(at)) assert.ok('error' in outcome, `byte ${byte.toString(16)} at ${at} decodes`);
  }
});

test('records of the wrong length, OCCURS DEPENDING ON, and a record whose JSON does not fit', () => {
  const layout = layoutOf(`           05  N   PIC 9(2).
           05  T   OCCURS 0 TO 3 TIMES DEPENDING ON N.
               10  A   PIC X(2).
               10  V   PIC S9(3) COMP-3.
`);
  for (const t of [
    [],
    [{ a: 'x', v: -1 }],
    [
      { a: '"', v: 0 },
      { a: '', v: 999 },
      { a: 'zz', v: -5 },
    ],
  ]) {
    const bytes = layout.encode({ n: t.length, t });
    assertSame(layout, bytes);
    assertSame(layout, bytes.subarray(0, bytes.length - 1));
    assertSame(layout, Buffer.concat([bytes, Buffer.from([0x40])]));
  }
  assertSame(layout, Buffer.from('f9f9', 'hex'));
  const fixed = layoutOf('           05  A   PIC X(3).\n');
  assertSame(fixed, Buffer.from('c1c1', 'hex'));
  assertSame(fixed, Buffer.from('c1c1c1c1', 'hex'));
  assert.throws(
    () => fixed.decodeJson(Buffer.from('c1c1c1', 'hex'), Buffer.alloc(fixed.jsonMaxLength - 1), 0),
    RangeError,
  );
  assert.throws(() => fixed.decodeJson(Buffer.from('c1c1c1', 'hex'), Buffer.alloc(fixed.jsonMaxLength), 1), RangeError);
});

test('fields off the fast path (floats, edited, national, binary of 8 bytes, empty-numeric) write decode’s values', () => {
  const layout = layoutOf(`           05  F1  COMP-1.
           05  F2  COMP-2.
           05  ED  PIC -ZZ,ZZ9.99.
           05  NA  PIC N(3).
           05  B8  PIC S9(18) COMP.
           05  LS  PIC S9(3) SIGN LEADING SEPARATE.
           05  BZ  PIC 9(3) BLANK WHEN ZERO.
`);
  const v = { f1: 1.5, f2: -0.1, ed: -1234.5, na: 'é"\u2028', b8: '-123456789012345678', ls: -7, bz: 0 };
  const bytes = layout.encode(v);
  assertSame(layout, bytes);
  const json = Buffer.from((byDecodeJson(layout, bytes) as { json: string }).json, 'hex').toString();
  assert.deepStrictEqual(JSON.parse(json), layout.decode(bytes));
  const empty = compileCopybook('       01  REC.\n           05  Q   PIC 9(3).\n', {
    ...ZOS_037,
    emptyNumeric: { spaces: 'null' },
  });
  assertSame(empty, Buffer.from('404040', 'hex'));
  assertSame(empty, Buffer.from('f0f1f2', 'hex'));
});

test('decodeDatasetJsonLines gives the lines decodeDataset and toJsonLines give, with skip, limit and onError', async () => {
  const layout = layoutOf(`           05  A   PIC X(4).
           05  V   PIC S9(3)V9 COMP-3.
`);
  const good = (k: number) => layout.encode({ a: `r${k}"`, v: k / 10 });
  const bad = Buffer.from('c1c1c1c1' + '000012', 'hex');
  const records = [good(1), good(2), bad, good(4), bad, good(6), good(7)];
  const file = Buffer.concat(records);
  // chunks that cut records in two, so batches follow chunks
  const chunks = async function* () {
    for (let i = 0; i < file.length; i += 5) yield file.subarray(i, i + 5);
  };
  const framing = { recfm: 'FB' as const, lrecl: layout.maxLength };
  for (const options of [
    { onError: 'skip' as const },
    { onError: 'null' as const },
    { onError: 'skip' as const, skip: 1, limit: 4 },
    { onError: 'null' as const, skip: 3, limit: 10 },
    { onError: 'null' as const, limit: 0 },
  ]) {
    let expected = '';
    const expectedErrors: unknown[] = [];
    for await (const batch of decodeDataset(chunks(), layout, { framing, ...options })) {
      for (const r of batch)
        if (r.error === undefined || options.onError === 'null') expected += toJsonLines([r.value]);
      expectedErrors.push(...batch.filter((r) => r.error !== undefined).map((r) => r.error!.toJSON()));
    }
    for (const decoder of [
      layout,
      { decode: layout.decode, minLength: layout.minLength, maxLength: layout.maxLength },
    ]) {
      let actual = '';
      let count = 0;
      const errors: unknown[] = [];
      for await (const batch of decodeDatasetJsonLines(chunks(), decoder, { framing, ...options })) {
        actual += batch.lines.toString('utf8');
        count += batch.count;
        errors.push(...batch.errors.map((e) => e.toJSON()));
      }
      assert.equal(actual, expected, JSON.stringify(options));
      assert.equal(count, expected.split('\n').length - 1);
      assert.deepStrictEqual(errors, expectedErrors);
    }
  }
  await assert.rejects(
    async () => {
      for await (const batch of decodeDatasetJsonLines(chunks(), layout, { framing })) void batch;
    },
    (e: DatasetError) => e instanceof DatasetError && e.record === 3 && e.offset === 14 && e.field === 'V',
  );
});
