/**
 * Property-based tests of `@bytes`: random copybooks under every profile (the arbitraries of property.test.ts),
 * random records, then random bytes laid over them (in FILLER most often, anywhere else too: a byte that still
 * decodes is a byte the file may hold, such as another sign nibble) and in the slack of F slots longer than the
 * layout. Decoding such a file with exactDecoder to JSON Lines and encoding those with exactEncoder must give the
 * file back byte for byte.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileCopybook, layoutItems, type CompiledLayout } from '../src/index.ts';
import {
  BYTES_KEY,
  byteRanges,
  DatasetError,
  decodeDatasetJsonLines,
  encodeBatches,
  exactDecoder,
  exactEncoder,
  readJsonLines,
  type FramingOptions,
} from '../src/dataset/index.ts';
import { layoutCaseArb, valueArb, type LayoutCase } from './arbitraries.ts';

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

/** Bytes laid over a record: at a FILLER's offset (when `filler`) or at a fraction of the record's length. */
interface Overlay {
  filler: boolean;
  where: number;
  bytes: number[];
}

interface ExactCase {
  layoutCase: LayoutCase;
  records: Array<Record<string, unknown>>;
  overlays: Overlay[][];
  /** F: bytes past the layout in each slot (the slot is the layout's length plus `slack`); V: none. */
  slack: number;
  slackBytes: number[][];
  framing: FramingOptions;
}

const overlayArb: fc.Arbitrary<Overlay> = fc.record({
  filler: fc.boolean(),
  where: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 }),
});

const exactCaseArb: fc.Arbitrary<ExactCase> = layoutCaseArb.chain((layoutCase) => {
  const { layout } = layoutCase;
  return fc
    .tuple(
      fc.array(valueArb(layout), { minLength: 1, maxLength: 8 }),
      fc.constantFrom<'F' | 'V'>('F', 'V'),
      fc.integer({ min: 0, max: 5 }),
      fc.constantFrom<'big' | 'little'>('big', 'little'),
    )
    .chain(([records, recfm, slack, rdw]) =>
      fc.record({
        layoutCase: fc.constant(layoutCase),
        records: fc.constant(records),
        overlays: fc.array(fc.array(overlayArb, { maxLength: 3 }), {
          minLength: records.length,
          maxLength: records.length,
        }),
        slack: fc.constant(recfm === 'F' ? slack : 0),
        slackBytes: fc.array(
          fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 })), {
            minLength: layout.maxLength + slack,
            maxLength: layout.maxLength + slack,
          }),
          { minLength: records.length, maxLength: records.length },
        ),
        framing: fc.constant<FramingOptions>(
          recfm === 'F' ? { recfm: 'F', lrecl: layout.maxLength + slack } : { recfm: 'V', rdw },
        ),
      }),
    );
});

/** Where FILLER lies in a record (its first occurrence; not behind OCCURS DEPENDING ON, which moves it). */
function fillersOf(layout: CompiledLayout): Array<[number, number]> {
  return [...layoutItems(layout.root)]
    .filter((i) => i.cobolName === 'FILLER' && i.afterOdo === undefined)
    .map((i) => [i.offset, i.length]);
}

/**
 * The records as a file might hold them: each one's bytes with the overlays laid over, where it still decodes to
 * a value that encodes (not so a byte above x'7F' in an ASCII field: decode shows it, encode refuses it).
 */
function recordsOf(c: ExactCase): Buffer[] {
  const { layout } = c.layoutCase;
  const fillers = fillersOf(layout);
  const fixed = c.framing.recfm === 'F';
  return c.records.map((value, r) => {
    const encoded = Buffer.from(layout.encode(value));
    // F: the slot is lrecl long, its bytes past the record from the arbitrary (x'00' half the time)
    const record = fixed ? Buffer.from(c.slackBytes[r]!) : Buffer.from(encoded);
    encoded.copy(record);
    for (const o of c.overlays[r]!) {
      const [at, room] =
        o.filler && fillers.length > 0
          ? fillers[Math.floor(o.where * fillers.length)]!
          : [Math.floor(o.where * encoded.length), encoded.length];
      const bytes = Buffer.from(o.bytes.slice(0, Math.max(0, Math.min(room, encoded.length - at))));
      const tried = Buffer.from(record);
      bytes.copy(tried, at);
      try {
        layout.encode(layout.decode(tried, fixed ? { trailing: 'ignore' } : undefined));
        tried.copy(record);
      } catch {
        // bytes the layout does not read (a bad digit, a count out of range) make a bad record: left out
      }
    }
    return record;
  });
}

function fileOf(records: Buffer[], framing: FramingOptions): Buffer {
  if (framing.recfm === 'F') return Buffer.concat(records);
  return Buffer.concat(
    records.flatMap((r) => {
      const rdw = Buffer.alloc(4);
      if (framing.rdw === 'little') rdw.writeUInt16LE(r.length + 4);
      else rdw.writeUInt16BE(r.length + 4);
      return [rdw, r];
    }),
  );
}

async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of source) parts.push(p);
  return Buffer.concat(parts);
}

const describeCase = (c: ExactCase) =>
  `${String(c.layoutCase)}framing: ${JSON.stringify(c.framing)}\nrecords: ${JSON.stringify(c.records)}\noverlays: ${JSON.stringify(c.overlays)}\n`;

test('property: FILLER, slack and any byte that still decodes → decode with @bytes → encode gives the file back', async () => {
  let kept = 0;
  await fc.assert(
    fc.asyncProperty(
      exactCaseArb.map((c) => Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })),
      async (c) => {
        const { layout } = c.layoutCase;
        const file = fileOf(recordsOf(c), c.framing);
        let lines = '';
        for await (const batch of decodeDatasetJsonLines(once(file), exactDecoder(layout), { framing: c.framing })) {
          lines += batch.lines.toString('utf8');
        }
        if (lines.includes(BYTES_KEY)) kept++;
        const maxLength = c.framing.recfm === 'F' ? c.framing.lrecl : undefined;
        const again = await collect(
          encodeBatches(readJsonLines(once(lines)), exactEncoder(layout, { maxLength }), { framing: c.framing }),
        );
        assert.equal(again.toString('hex'), file.toString('hex'));
      },
    ),
    { numRuns: NUM_RUNS },
  );
  // the property is about files that hold such bytes: most runs must have had some
  assert.ok(kept > NUM_RUNS / 4, `only ${kept} of ${NUM_RUNS} files had bytes their JSON cannot say`);
});

test('property: a record that encodes back to its own bytes gets no @bytes', async () => {
  await fc.assert(
    fc.property(
      layoutCaseArb.chain((lc) => fc.tuple(fc.constant(lc), valueArb(lc.layout))),
      ([{ layout }, value]) => {
        const bytes = layout.encode(value);
        assert.deepStrictEqual(exactDecoder(layout).decode(bytes), layout.decode(bytes));
        assert.equal(byteRanges(bytes, bytes, false), undefined);
      },
    ),
    { numRuns: NUM_RUNS },
  );
});

test('byteRanges: x00 slack of an F slot is no difference; of a V record it is', () => {
  const encoded = Buffer.from('c1c2c3', 'hex');
  assert.equal(byteRanges(Buffer.from('c1c2c30000', 'hex'), encoded, true), undefined);
  assert.deepEqual(byteRanges(Buffer.from('c1c2c30000', 'hex'), encoded, false), [[3, '0000', '0000']]);
  assert.deepEqual(byteRanges(Buffer.from('c1c2c300aa', 'hex'), encoded, true), [[4, 'aa', '00']]);
  // differences two bytes apart are one range; three apart, two
  assert.deepEqual(byteRanges(Buffer.from('00c2c300', 'hex'), Buffer.from('c1c2c3c4', 'hex'), false), [
    [0, '00c2c300', 'c1c2c3c4'],
  ]);
  assert.deepEqual(byteRanges(Buffer.from('00c2c3c400', 'hex'), Buffer.from('c1c2c3c4c5', 'hex'), false), [
    [0, '00', 'c1'],
    [4, '00', 'c5'],
  ]);
});

test('a record whose value decodes but does not encode is a bad record under @bytes, naming its field', async () => {
  const layout = compileCopybook(
    ['       01 REC.', '          05 REC-ID PIC X(3).', '          05 REC-NAME PIC X(4).'].join('\n'),
    { profile: 'gnucobol', encoding: 'ascii' },
  );
  const file = Buffer.from('ABCxy\x80z', 'latin1');
  assert.equal((layout.decode(file) as { recName: string }).recName, 'xy\x80z');
  const framing: FramingOptions = { recfm: 'F', lrecl: 7 };
  await assert.rejects(
    collect(
      (async function* () {
        for await (const b of decodeDatasetJsonLines(once(file), exactDecoder(layout), { framing })) yield b.lines;
      })(),
    ),
    (e: unknown) => {
      assert.ok(e instanceof DatasetError);
      assert.equal(e.field, 'REC-NAME');
      assert.match(e.message, /^record 1 at byte 0 \(REC-NAME\): its value does not encode back: .*, at byte 3 /);
      return true;
    },
  );
});
