/**
 * Encode of JSON Lines reads lines whose keys come in the layout's order straight into record bytes; any other
 * line goes through JSON.parse and `encode`. Both must give the same file, or the same error (message, line,
 * record, offset, field), as the object path (`encodeBatches(readJsonLines(…))` with an encoder that is not a
 * compiled layout): over random copybooks and records, their JSON respelled, reordered, edited byte by byte,
 * values replaced by random JSON, and the input cut into random chunks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, type CompiledLayout } from '../src/index.ts';
import {
  DatasetError,
  encodeBatches,
  encodeJsonLines,
  readJsonLines,
  type FramingOptions,
} from '../src/dataset/index.ts';
import { jsonLineEncoderOf } from '../src/codegen/json-encode.ts';
import { layoutCaseArb, replaceAt, sitesOf, valueArb } from './arbitraries.ts';

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

type Outcome = { file: string } | { error: unknown };

async function* chunked(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > from && cut < bytes.length) {
      yield bytes.subarray(from, cut);
      from = cut;
    }
  }
  if (from < bytes.length) yield bytes.subarray(from);
}

const shown = (e: unknown) =>
  e instanceof DatasetError
    ? { message: e.message, line: e.line, record: e.record, offset: e.offset, field: e.field, reason: e.reason }
    : { other: String(e) };

async function outcome(run: () => AsyncIterable<Uint8Array>): Promise<Outcome> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of run()) parts.push(Buffer.from(chunk));
    return { file: Buffer.concat(parts).toString('hex') };
  } catch (e) {
    return { error: shown(e) };
  }
}

/** The object path: the same layout behind an encoder that is not one. */
const objectPath = (layout: CompiledLayout) => ({ encode: (v: unknown) => layout.encode(v) });

async function assertSame(layout: CompiledLayout, text: Buffer, cuts: number[], framing: FramingOptions) {
  const expected = await outcome(() =>
    encodeBatches(readJsonLines(chunked(text, cuts)), objectPath(layout), { framing }),
  );
  const batches = await outcome(() => encodeBatches(readJsonLines(chunked(text, cuts)), layout, { framing }));
  assert.deepStrictEqual(batches, expected, 'encodeBatches(readJsonLines) of a layout');
  let records = 0;
  const lines = await outcome(async function* () {
    for await (const batch of encodeJsonLines(chunked(text, cuts), layout, { framing })) {
      records += batch.records;
      yield batch.bytes;
    }
  });
  assert.deepStrictEqual(lines, expected, 'encodeJsonLines');
  return { expected, records };
}

const framingOf = (layout: CompiledLayout, variable: boolean): FramingOptions =>
  variable ? { recfm: 'V' } : { recfm: 'F', lrecl: layout.maxLength };

const fileArb = layoutCaseArb.chain((c) =>
  fc
    .record({
      values: fc.array(valueArb(c.layout), { minLength: 1, maxLength: 4 }),
      cuts: fc.array(fc.nat({ max: 4000 }), { maxLength: 4 }),
      variable: fc.boolean(),
    })
    .map((x) => Object.assign({ ...c, ...x }, { [fc.toStringMethod]: () => `${String(c)}${JSON.stringify(x)}\n` })),
);

test('property: JSON Lines as decode writes them take the byte path and give encode’s records', async () => {
  await fc.assert(
    fc.asyncProperty(fileArb, async ({ layout, values, cuts, variable }) => {
      const text = Buffer.from(values.map((v) => JSON.stringify(layout.decode(layout.encode(v))) + '\n').join(''));
      const { expected, records } = await assertSame(layout, text, cuts, framingOf(layout, variable));
      assert.ok('file' in expected, 'encode took every record');
      assert.equal(records, values.length);
      const fast = jsonLineEncoderOf(layout);
      if (fast === null) return;
      // every line of a layout the byte path takes is read by it
      const record = Buffer.alloc(fast.length);
      for (const v of values) {
        const line = Buffer.from(JSON.stringify(layout.decode(layout.encode(v))) + '\n');
        assert.equal(fast.encodeLine(line, 0, record), line.length - 1, `the byte path refused ${line}`);
        assert.ok(record.equals(layout.encode(v)));
      }
    }),
    { numRuns: NUM_RUNS },
  );
});

/** Bytes that change what a JSON line means: quotes, escapes, digits, signs, separators, bad UTF-8. */
const EDIT_BYTES = [...'"\\0123456789-+.eE,:{}[] \tnx\r'].map((ch) => ch.charCodeAt(0)).concat([0xc3, 0xa9, 0xff, 0]);

test('property: edited, reordered and respelled lines give the same file or the same error', async () => {
  const arb = fileArb.chain((c) => {
    const lines = c.values.map((v) => JSON.stringify(c.layout.decode(c.layout.encode(v))));
    const value = c.layout.decode(c.layout.encode(c.values[0]!));
    const sites = sitesOf(c.layout, value);
    const edit = fc.oneof(
      // a byte changed, inserted or removed
      fc
        .tuple(fc.nat(), fc.constantFrom(...EDIT_BYTES), fc.constantFrom('set', 'insert', 'delete'))
        .map(([at, byte, how]) => (line: Buffer) => {
          const i = at % (line.length + 1);
          const b = Buffer.from([byte]);
          if (how === 'insert') return Buffer.concat([line.subarray(0, i), b, line.subarray(i)]);
          if (how === 'delete') return Buffer.concat([line.subarray(0, i), line.subarray(i + 1)]);
          return Buffer.concat([line.subarray(0, i), b, line.subarray(i + 1)]);
        }),
      // a value replaced by random JSON (or a number near the picture's edges)
      fc
        .tuple(
          fc.constantFrom(...sites),
          fc.oneof(
            fc.jsonValue({ maxDepth: 1 }),
            fc.double(),
            fc.integer(),
            fc.constantFrom(-0, 0.5, -1, 1e21, 1e-7, 123456789012345, 1234567890123456, '12.5', '-0', null),
          ),
        )
        .map(
          ([site, replacement]) =>
            () =>
              Buffer.from(JSON.stringify(replaceAt(value, site.keys, replacement))),
        ),
      // keys in another order, spaces between the tokens, escaped characters
      fc.constantFrom(
        () => Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(value).reverse()))),
        () => Buffer.from(JSON.stringify(value, null, 1).replace(/\n/g, ' ')),
        () => Buffer.from(JSON.stringify(value).replace(/[A-Za-z]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`)),
        () => Buffer.from(JSON.stringify(value).replace(/[A-Za-z]/, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`)),
        () => Buffer.from(`${JSON.stringify(value)}\r`),
        () => Buffer.from(`  ${JSON.stringify(value)}  `),
        () => Buffer.from(''),
        () => Buffer.from(JSON.stringify(value).replace(/"\}/, '" }')),
      ),
    );
    return fc.tuple(edit, fc.nat({ max: lines.length }), fc.boolean()).map(([f, at, newline]) => {
      const edited = [...lines.map((l) => Buffer.from(l))];
      edited.splice(at, 0, f(Buffer.from(JSON.stringify(value))));
      const text = Buffer.concat(
        edited.flatMap((l, i) => (i < edited.length - 1 || newline ? [l, Buffer.from('\n')] : [l])),
      );
      return Object.assign({ ...c, text }, { [fc.toStringMethod]: () => `${String(c)}${text.toString('latin1')}\n` });
    });
  });
  await fc.assert(
    fc.asyncProperty(arb, async ({ layout, text, cuts, variable }) => {
      await assertSame(layout, text, cuts, framingOf(layout, variable));
    }),
    { numRuns: NUM_RUNS * 2 },
  );
});

test('the bench records: numbers at the edges of their pictures, texts with escapes and characters cp037 lacks', async () => {
  const layout = compileCopybook(
    `
       01  R.
           05  A   PIC S9(15) COMP-3.
           05  B   PIC 9(3)V99.
           05  C   PIC S9(3)V9(6) COMP-3.
           05  D   PIC X(6).
           05  E   PIC S9(5) SIGN LEADING SEPARATE.
           05  F   PIC S9(4) SIGN LEADING.
           05  G   PIC 9(4) BLANK WHEN ZERO.
           05  H   PIC A(4).
           05  I   PIC X(5) JUSTIFIED RIGHT.
           05  J   PIC S9(4) COMP.
`,
    { profile: 'zos', encoding: 'cp037' },
  );
  assert.ok(jsonLineEncoderOf(layout) !== null);
  const lines = [
    '{"a":999999999999999,"b":999.99,"c":-999.999999,"d":"é\\"\\\\\\/","e":-0,"f":-1,"g":0,"h":"Ab C","i":"xy","j":-32768}',
    '{"a":-999999999999999,"b":0.01,"c":0.000001,"d":"\\u00e9\\t","e":99999,"f":9999,"g":12,"h":"","i":"","j":0}',
    '{"a":-0,"b":0,"c":-0.0,"d":"","e":-99999,"f":-9999,"g":"0","h":"Z","i":"abcde","j":"12"}',
    '{"a":1000000000000000}',
    '{"b":1000}',
    '{"b":-1}',
    '{"b":1.001}',
    '{"c":1e2}',
    '{"d":"€"}',
    '{"d":"1234567"}',
    '{"h":"A1"}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":-}',
    '{"d":"\\x"}',
    '{"d":"\t"}',
    '{"z":1}',
    '{"a":1,"a":2}',
    '{"b":1,"a":2}',
    '{"a":1,}',
    '{}',
    '[]',
    '',
    '{"a":1} x',
  ];
  for (const line of lines) {
    for (const framing of [framingOf(layout, false), framingOf(layout, true)]) {
      await assertSame(layout, Buffer.from(line + '\n'), [], framing);
      await assertSame(layout, Buffer.from(`{}\n${line}\n{}`), [3, 5], framing);
    }
  }
});
